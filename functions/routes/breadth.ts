/** Breadth above session VWAP. */
import * as v from 'valibot';
import { BREADTH_FAMILIES } from '../core/breadth/compute.ts';
import { BreadthHistoryQuery, BreadthSnapshotSchema } from '#schemas/market.ts';
import { operationGroup, page } from './operation.ts';

/** Breadth above session VWAP, core and hip3 only (no spot, no hip4 breadth). */
export const BREADTH_OPERATIONS = operationGroup('breadth-api', {
  breadthCurrent: {
    datatype: 'breadth',
    suffix: '/breadth/above-vwap/current',
    families: BREADTH_FAMILIES,
    summary: 'Latest breadth snapshot, even if stale',
    tags: ['Breadth'],
    billed: true,
    response: page(BreadthSnapshotSchema, 'The latest snapshot'),
  },
  breadthHistory: {
    datatype: 'breadth',
    suffix: '/breadth/above-vwap',
    families: BREADTH_FAMILIES,
    summary: 'Breadth minute history',
    tags: ['Breadth'],
    billed: true,
    query: BreadthHistoryQuery,
    response: page(v.array(BreadthSnapshotSchema), 'Snapshots, oldest first'),
  },
});
