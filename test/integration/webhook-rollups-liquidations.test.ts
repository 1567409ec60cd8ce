/** The liquidation rollups against a raw replay of their detectors (see test/helpers/rollup-cases.ts). */
import { describeRollups } from '../helpers/rollup-cases.ts';

describeRollups(['liquidation_rollups_1h', 'account_liquidation_rollups_1h']);
