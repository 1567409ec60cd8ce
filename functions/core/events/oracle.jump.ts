import { oracleJumps, oracleJumpsOfMoves } from '../detect/minute-detectors.ts';
import { HOUR_MS, MINUTE_MS, rowsOf } from '../detect/minute-reads.ts';
import { common, declaration, minute, pct, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'oracle.jump', live: true, description: 'An oracle price moved at least the threshold between updates', scope: 'public', venues: ['hip3'], scopeKeys: ['venue', 'symbols'],
    params: { threshold_pct: { type: 'number', default: 2, min: 0.1, max: 50, unit: '%', description: 'Move that fires' } },
    metrics: { ...common(['hip3']), dex: { type: 'text' }, change_pct: pct('Move between updates'), direction: { type: 'enum', values: ['up', 'down'] } },
  }),
  // Oracle prices ride on the open-interest rows; ten minutes back finds each market's previous update.
  detection: minute<{ threshold_pct: number }>({
    params: ['threshold_pct'],
    detect: async (ctx, sets) => oracleJumps(await rowsOf(ctx, 'open_interest', ['hip3'], ctx.from - 10 * MINUTE_MS), ctx.from, ctx.to, sets.map((s) => s.threshold_pct)),
  }),
  preview: {
    estimate: {
      metric: 'change_pct', absolute: true, gate: { param: 'threshold_pct', lowest: 0.1 },
      // The updates that can fire (0.1% moves and up) with the update before each, from their hourly reduction.
      reduced: {
        rows: { reduction: 'oracle_moves_1h' }, bySymbol: true, since: (from) => from - HOUR_MS,
        detect: async (rows, from, to, _archive, paramSets) => oracleJumpsOfMoves(rows, from, to, paramSets.map((s) => s.threshold_pct as number)),
        note: 'Each update is compared with the one before it in the archive, however long before (live detection looks ten minutes back).',
      },
    },
  },
} satisfies EventDefinition<'oracle.jump'>;
