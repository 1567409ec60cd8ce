/**
 * The real service's transparent cursors over the real archive (dynalite manifest, s3rver objects,
 * DuckDB), on tie-heavy data: trades and liquidations many to a millisecond, liquidation fills
 * sharing a trade id (both sides liquidated), and a wallet's fills across markets at one instant.
 * Whatever the batches, compaction and page size, a walk serves every row once in order; each
 * next cursor is the one a client builds from the last row served; a cursor built from any row
 * resumes right after it (after its whole run, where rows share what the cursor names); and a
 * cursor outside the window, or in another form, is invalid_cursor.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ingestBatch } from '#core/archive/ingest.ts';
import { compactArchive } from '#core/archive/compact.ts';
import { tradesPage } from '#core/market/queries.ts';
import { liquidationsPage, userLiquidationsPage } from '#core/market/liquidations.ts';
import { scratchArchive } from '../helpers/scratch-archive.ts';
import { routePaging } from '../helpers/api.ts';

const deps = scratchArchive();

const T0 = Date.parse('2026-09-01T00:00:00Z');
const NOW = T0 + 2 * 86_400_000;
const WALLETS = ['0x00000000000000000000000000000000000000aa', '0x00000000000000000000000000000000000000bb'];

type Page = { json: string; nextCursor: string | null };

/** Every page of a walk from `cursor`, rows parsed. */
async function pages<Row>(next: (cursor?: string) => Promise<Page>, cursor?: string): Promise<{ rows: Row[]; next: string | null }[]> {
  const walked: { rows: Row[]; next: string | null }[] = [];
  for (let at = cursor; ; ) {
    const page = await next(at);
    walked.push({ rows: JSON.parse(`[${page.json}]`) as Row[], next: page.nextCursor });
    if (!page.nextCursor) return walked;
    at = page.nextCursor;
  }
}

/** Offsets from a handful of milliseconds, so rows tie on their time. */
const tieOffset = fc.integer({ min: 0, max: 4 }).map((ms) => ms * 1_000);
let run = 0;

async function ingest(records: readonly object[], batches: number, compact: boolean): Promise<void> {
  for (let b = 0; b < batches; b++) {
    // Every batch after the first repeats some rows: duplicates must collapse on the unique key.
    const part = records.filter((_, i) => i % batches === b || (b > 0 && i % 5 === 0));
    if (part.length) await ingestBatch(deps(), 'normalized', part.map((r) => JSON.stringify(r)).join('\n'));
  }
  if (compact) await compactArchive(deps(), { families: ['perpx'] });
}

const refusal = expect.objectContaining({ code: 'invalid_cursor', param: 'cursor' });

describe('transparent cursors on tie-heavy pages', () => {
  it('page trades as <ts_ms>_<trade_id>: each row once, each next cursor built from the last row, any row a place to resume', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(tieOffset, { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        fc.nat(),
        async (offsets, batches, compact, limit, pick) => {
          // Prepare: trade ids unique in the family, not in time order.
          const symbol = `TC${run}`;
          const firstId = run++ * 1_000;
          const records = offsets.map((offset, i) => ({
            dataset: 'trades',
            family: 'perpx',
            symbol,
            ts: T0 + offset,
            trade_id: firstId + ((i * 37) % 1_000),
            side: i % 2 ? 'A' : 'B',
            price: '100',
            size: '1',
          }));
          await ingest(records, batches, compact);
          const window = { ...routePaging('getPerpxTrades'), family: 'perpx' as const, symbol, start: T0, end: T0 + 10_000, limit };
          const next = (cursor?: string) => tradesPage(deps(), { ...window, cursor }, NOW);
          const expected = [...records].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id).map((r) => r.trade_id);
          const built = (r: { timestamp: string; trade_id?: number }) => `${Date.parse(r.timestamp)}_${r.trade_id}`;

          // Act
          const walked = await pages<{ timestamp: string; trade_id?: number }>(next);
          const from = walked.flatMap((p) => p.rows)[pick % expected.length]!;
          const resumed = await pages<{ trade_id?: number }>(next, built(from));

          // Assess
          expect(walked.flatMap((p) => p.rows.map((r) => r.trade_id))).toEqual(expected);
          for (const page of walked) if (page.next) expect(page.next).toBe(built(page.rows.at(-1)!));
          expect(resumed.flatMap((p) => p.rows.map((r) => r.trade_id))).toEqual(expected.slice(expected.indexOf(from.trade_id!) + 1));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('page liquidations as <ts_ms>_<trade_id> without splitting a trade both of whose sides were liquidated', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ offset: tieOffset, bothSides: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 8 }),
        fc.nat(),
        async (fills, batches, compact, limit, pick) => {
          // Prepare: a trade with both sides liquidated is two rows of one trade id.
          const symbol = `LC${run}`;
          const firstId = run++ * 1_000;
          const records = fills.flatMap((f, i) =>
            (f.bothSides ? WALLETS.slice(0, 2) : WALLETS.slice(0, 1)).map((user) => ({
              dataset: 'liquidations',
              family: 'perpx',
              symbol,
              ts: T0 + f.offset,
              trade_id: firstId + ((i * 13) % 1_000),
              liquidated_user: user,
              price: '100',
              size: '1',
              side: user === WALLETS[0] ? 'A' : 'B',
            })),
          );
          await ingest(records, batches, compact);
          const window = { ...routePaging('getPerpxLiquidations'), family: 'perpx' as const, symbol, start: T0, end: T0 + 10_000, limit };
          const next = (cursor?: string) => liquidationsPage(deps(), { ...window, cursor }, NOW);
          const key = (r: { trade_id: number; liquidated_user: string }) => `${r.trade_id}/${r.liquidated_user}`;
          const expected = [...records].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id || a.liquidated_user.localeCompare(b.liquidated_user)).map(key);
          const built = (r: { timestamp: string; trade_id: number }) => `${Date.parse(r.timestamp)}_${r.trade_id}`;
          type Row = { timestamp: string; trade_id: number; liquidated_user: string };

          // Act
          const walked = await pages<Row>(next);
          const rows = walked.flatMap((p) => p.rows);
          const from = rows[pick % rows.length]!;
          const resumed = await pages<Row>(next, built(from));

          // Assess: a page ends after a whole trade (one larger than the page is served whole).
          expect(rows.map(key)).toEqual(expected);
          for (const page of walked) if (page.next) expect(page.next).toBe(built(page.rows.at(-1)!));
          for (const page of walked) expect(page.rows.length <= limit || new Set(page.rows.map((r) => r.trade_id)).size === 1).toBe(true);
          const afterTrade = rows.findLastIndex((r) => r.trade_id === from.trade_id) + 1;
          expect(resumed.flatMap((p) => p.rows).map(key)).toEqual(expected.slice(afterTrade));
        },
      ),
      { numRuns: 15 },
    );
  });

  it("page a wallet's liquidations as <ts_ms> without splitting an instant, across markets", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ offset: tieOffset, market: fc.integer({ min: 0, max: 2 }) }), { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 8 }),
        async (fills, compact, limit) => {
          // Prepare: a wallet of its own, liquidated in several markets at the same instants (a cross-margin cascade).
          const firstId = run * 1_000;
          const wallet = `0x${(++run).toString(16).padStart(40, 'd')}`;
          const records = fills.map((f, i) => ({
            dataset: 'liquidations',
            family: 'perpx',
            symbol: `UC${run}M${f.market}`,
            ts: T0 + f.offset,
            trade_id: firstId + i,
            liquidated_user: wallet,
            price: '100',
            size: '1',
            side: 'A',
          }));
          await ingest(records, 1, compact);
          const window = { ...routePaging('getPerpxUserLiquidations'), family: 'perpx' as const, user: wallet, start: T0, end: T0 + 10_000, limit };
          type Row = { timestamp: string; trade_id: number };
          const expectedIds = [...records].sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id).map((r) => r.trade_id);

          // Act
          const walked = await pages<Row>((cursor) => userLiquidationsPage(deps(), { ...window, cursor }, NOW));
          const rows = walked.flatMap((p) => p.rows);

          // Assess
          expect(rows.map((r) => r.trade_id)).toEqual(expectedIds);
          for (const page of walked) if (page.next) expect(page.next).toBe(String(Date.parse(page.rows.at(-1)!.timestamp)));
          for (const page of walked) expect(page.rows.length <= limit || new Set(page.rows.map((r) => r.timestamp)).size === 1).toBe(true);
          // has_more is false only on the last page (the walk above holds every row), and true only
          // with rows still to come, save after a page that is one instant: it is served whole
          // without looking past it, so the page after it may be empty.
          walked.forEach((page, i) => {
            if (page.next && walked[i + 1]!.rows.length === 0) expect(new Set(page.rows.map((r) => r.timestamp)).size, page.next).toBe(1);
          });
        },
      ),
      { numRuns: 10 },
    );
  });

  it("ends a wallet's walk where its rows end: one liquidation is the last page; one instant across markets is served whole, then an empty last page", async () => {
    // Prepare
    const [once, cascade] = [`0x${'e'.repeat(39)}1`, `0x${'e'.repeat(39)}2`];
    const fill = (user: string, symbol: string, ts: number, trade_id: number) => ({
      dataset: 'liquidations',
      family: 'perpx',
      symbol,
      ts,
      trade_id,
      liquidated_user: user,
      price: '100',
      size: '1',
      side: 'A',
    });
    await ingest([fill(once, 'EW0', T0 + 1_000, 9_000_001), ...[0, 1, 2].map((m) => fill(cascade, `EW${m}`, T0 + 2_000, 9_000_010 + m))], 1, false);
    const window = { ...routePaging('getPerpxUserLiquidations'), family: 'perpx' as const, start: T0, end: T0 + 10_000, limit: 1 };
    // Act
    const single = await userLiquidationsPage(deps(), { ...window, user: once }, NOW);
    const instant = await userLiquidationsPage(deps(), { ...window, user: cascade }, NOW);
    const after = await userLiquidationsPage(deps(), { ...window, user: cascade, cursor: instant.nextCursor! }, NOW);
    // Assess
    expect(single).toMatchObject({ count: 1, nextCursor: null });
    expect(instant).toMatchObject({ count: 3, nextCursor: String(T0 + 2_000) });
    expect(after).toMatchObject({ count: 0, nextCursor: null });
  });

  it('refuses a cursor outside the window, in the other form, or malformed, as invalid_cursor', async () => {
    // Prepare
    const trades = { ...routePaging('getPerpxTrades'), family: 'perpx' as const, symbol: 'BTC', start: T0, end: T0 + 10_000, limit: 10 };
    const userLiquidations = {
      ...routePaging('getPerpxUserLiquidations'),
      family: 'perpx' as const,
      user: WALLETS[0]!,
      start: T0,
      end: T0 + 10_000,
      limit: 10,
    };
    // Act, assess
    for (const cursor of [`${T0 - 1}_5`, `${T0 + 10_001}_5`, `${T0}`, `${T0}_5_1`, `${T0}_-5`, `${T0}_${2 ** 53}`, `${T0}_x`]) {
      await expect(tradesPage(deps(), { ...trades, cursor }, NOW), cursor).rejects.toEqual(refusal);
    }
    for (const cursor of [`${T0}_5`, `${T0 - 1}`, '']) {
      await expect(userLiquidationsPage(deps(), { ...userLiquidations, cursor }, NOW), cursor).rejects.toEqual(refusal);
    }
    // The window's own edges are positions in it.
    await expect(tradesPage(deps(), { ...trades, cursor: `${T0 + 10_000}_0` }, NOW)).resolves.toMatchObject({ count: 0, nextCursor: null });
  });
});
