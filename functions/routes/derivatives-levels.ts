/** The derivatives group's level maps (trigger and liquidation levels, now and over a window), spread into it in place. */
import * as v from 'valibot';
import { familiesOf } from '#schemas/datasets.ts';
import { symbolPath } from '#schemas/market.ts';
import {
  LevelsHistoryQuery,
  LevelsQuery,
  LiquidationLevelsItemSchema,
  LiquidationLevelsQuery,
  LiquidationLevelsSchema,
  TriggerLevelsItemSchema,
  TriggerLevelsSchema,
} from '#schemas/levels.ts';
import { page, type OperationSpec } from './operation.ts';
import { PERPX_PERPETUALS } from './market-activity.ts';

/** The level maps' families: the perpetual families with the data each is derived from. */
const levelFamilies = (dataset: 'order_events' | 'position_snapshots') => PERPX_PERPETUALS.filter((family) => familiesOf(dataset).includes(family));

export const LEVEL_OPERATIONS = {
  triggerLevels: {
    datatype: 'trigger_levels',
    suffix: '/orders/{symbol}/trigger-levels',
    families: levelFamilies('order_events'),
    tags: ['Orders'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Resting trigger orders now, by trigger price, in buckets around the mark',
    query: LevelsQuery,
    response: page(TriggerLevelsSchema, 'Every bucket of the range, lowest price first'),
  },
  triggerLevelsHistory: {
    datatype: 'trigger_levels',
    suffix: '/orders/{symbol}/trigger-levels/history',
    families: levelFamilies('order_events'),
    tags: ['Orders'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Trigger levels at each quarter hour of a window, oldest first',
    query: LevelsHistoryQuery,
    response: page(v.array(TriggerLevelsItemSchema), 'A page of snapshots; an instant without a mark price is left out'),
  },
  liquidationLevels: {
    datatype: 'liquidation_levels',
    suffix: '/liquidations/{symbol}/levels',
    families: levelFamilies('position_snapshots'),
    tags: ['Liquidations'],
    billed: true,
    pathParams: symbolPath,
    summary: "Positions' projected liquidation prices at a positions snapshot, in buckets around the mark",
    query: LiquidationLevelsQuery,
    response: page(LiquidationLevelsSchema, 'Every bucket of the range, lowest price first'),
  },
  liquidationLevelsHistory: {
    datatype: 'liquidation_levels',
    suffix: '/liquidations/{symbol}/levels/history',
    families: levelFamilies('position_snapshots'),
    tags: ['Liquidations'],
    billed: true,
    pathParams: symbolPath,
    summary: 'Liquidation levels at each positions snapshot of a window, oldest first',
    query: LevelsHistoryQuery,
    response: page(v.array(LiquidationLevelsItemSchema), 'A page of snapshots; a snapshot without a mark price is left out'),
  },
} as const satisfies Readonly<Record<string, OperationSpec>>;
