/** The compact function's rederive invocation refuses what it cannot derive, naming what it takes (before touching the archive). */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '#functions/schedules/compact.ts';

const context = { functionName: 'compact', awsRequestId: 'test', getRemainingTimeInMillis: () => 60_000 } as Context;

describe('compact { rederive }', () => {
  it.each([
    { from: '2026-10-01', to: 'yesterday' },
    { from: '2026-10-1', to: '2026-10-02' },
    { from: '2026-10-01', to: '2026-10-02', datasets: ['trades'] },
  ])('refuses %j', async (rederive) => {
    await expect(handler({ rederive } as never, context)).rejects.toThrow(/rederive takes \{ from, to \} UTC days .* datasets among .*candles_1m/);
  });
});
