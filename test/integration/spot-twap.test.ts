/**
 * Spot TWAP statuses over the real archive: by pair and by wallet, each status once along a cursor
 * walk, oldest first, with the notional of the TWAP's fills up to it (a model summed in JavaScript
 * from the same trades) and its first fill's time; other wallets' and other families' rows stay out.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { spotTwapPage } from '#core/market/spot-twap.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { routePaging } from '../helpers/api.ts';
import type { SpotTwap } from '#schemas/flow-analytics.ts';

const deps = scratchArchive();
const T0 = Date.parse('2026-09-02T00:00:00Z');
const NOW = T0 + 2 * 86_400_000;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
let run = 0;

const ingest = (records: readonly object[]) => ingestBatch(deps(), 'normalized', records.map((r) => JSON.stringify(r)).join('\n'));

async function walk(next: (cursor?: string) => ReturnType<typeof spotTwapPage>): Promise<SpotTwap[]> {
  const rows: SpotTwap[] = [];
  let cursor: string | undefined;
  do {
    const page = await next(cursor);
    rows.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

const twapSpec = fc.record({
  wallet: fc.integer({ min: 1, max: 3 }),
  fills: fc.array(
    fc.record({ dt: fc.integer({ min: 0, max: 3_600_000 }), cents: fc.integer({ min: 100, max: 100_000 }), lots: fc.integer({ min: 1, max: 500 }) }),
    { minLength: 1, maxLength: 6 },
  ),
});

describe('spot TWAPs', () => {
  it('serves each status once, with the notional its fills executed up to it, by pair and by wallet', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(twapSpec, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 4 }), async (specs, limit) => {
        // Prepare
        const base = run++;
        const symbol = `TW${base}-USDC`;
        const wallets = specs.map((s) => addr(base * 10 + s.wallet));
        const trades: { twap: number; ts: number; price: string; size: string }[] = [];
        const statuses: {
          dataset: string;
          family: string;
          symbol: string;
          ts: number;
          twap_id: number;
          user_address: string;
          status: string;
          side: string;
          size: string;
          executed_size: string;
        }[] = [];
        specs.forEach((spec, i) => {
          const twap = base * 100 + i;
          const fills = [...spec.fills]
            .sort((a, b) => a.dt - b.dt)
            .map((f) => ({ twap, ts: T0 + i * 60_000 + f.dt, price: (f.cents / 100).toFixed(2), size: (f.lots / 10).toFixed(1) }));
          trades.push(...fills);
          const common = { dataset: 'twaps', family: 'spot', symbol, twap_id: twap, user_address: wallets[i]!, side: 'B', size: '1', executed_size: '1' };
          statuses.push({ ...common, ts: fills[0]!.ts, status: 'activated' }, { ...common, ts: fills[fills.length - 1]!.ts + 1, status: 'finished' });
        });
        await ingest([
          ...statuses,
          ...trades.map((t, n) => ({
            dataset: 'trades',
            family: 'spot',
            symbol,
            ts: t.ts,
            trade_id: base * 1000 + n,
            side: 'B',
            price: t.price,
            size: t.size,
            twap_id: t.twap,
            user_address: addr(1),
          })),
          // The same ids on core are another venue's TWAPs: never read.
          {
            dataset: 'twaps',
            family: 'perpx',
            symbol: 'BTC',
            ts: T0,
            twap_id: base * 100,
            user_address: wallets[0]!,
            status: 'activated',
            side: 'B',
            size: '1',
            executed_size: '0',
          },
        ]);
        const window = { start: T0, end: T0 + 86_400_000 };
        // Act
        const byPair = await walk((cursor) => spotTwapPage(deps(), { ...routePaging('getSpotSpotTwap'), symbol, ...window, limit, cursor }, NOW));
        const user = wallets[0]!;
        const byUser = await walk((cursor) =>
          spotTwapPage(deps(), { ...routePaging('getSpotSpotTwapUser'), user: user.toUpperCase().replace('0X', '0x'), ...window, limit, cursor }, NOW),
        );
        // Assess
        const key = (r: { twap_id: number; status: string }) => `${r.twap_id}/${r.status}`;
        expect(byPair.map(key).sort()).toEqual(statuses.map(key).sort());
        expect(byPair.map((r) => Date.parse(r.timestamp))).toEqual([...byPair.map((r) => Date.parse(r.timestamp))].sort((a, b) => a - b));
        for (const row of byPair) {
          const at = Date.parse(row.timestamp);
          const fills = trades.filter((t) => t.twap === row.twap_id && t.ts <= at);
          expect(row.executed_notional).toBeCloseTo(
            fills.reduce((n, t) => n + Number(t.price) * Number(t.size), 0),
            6,
          );
          expect(row.started_at).toBe(new Date(Math.min(...fills.map((t) => t.ts))).toISOString());
          expect(row).toMatchObject({ coin: symbol, side: 'B', size: 1, executed_size: 1 });
        }
        expect(byUser.map(key).sort()).toEqual(
          statuses
            .filter((s) => s.user_address === user)
            .map(key)
            .sort(),
        );
      }),
      { numRuns: 8 },
    );
  });
});
