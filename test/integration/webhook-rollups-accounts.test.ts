/** The fill and transfer rollups against a raw replay of their detectors (see test/helpers/rollup-cases.ts). */
import { describeRollups } from '../helpers/rollup-cases.ts';

describeRollups(['fill_rollups_1h', 'transfer_rollups_1h']);
