/** Prepares what the test run's files share: `node --import tsx test/helpers/prepare-run-fixtures.ts <dir>` (started by the global setup). */
import { prepareShared } from './run-fixtures.ts';

const root = process.argv[2];
if (!root) throw new Error('usage: prepare-run-fixtures.ts <directory>');
await prepareShared(root);
process.exit(0);
