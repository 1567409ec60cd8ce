/**
 * Ad-hoc profile of a one-day dry-run over 300 markets (not part of `npm run bench`): a 2-day archive
 * of 300 perpx markets (60 liquidation fills a market-day) at 12:30 on the last day, six dry-runs,
 * each with its SQL time and the slowest queries of the last. Run:
 * `PATH=node_modules/.bin:$PATH node bin/with-local-ca.mjs tsx bench/profile-dryrun.ts`.
 */
import { ingestRecords } from '../functions/core/archive/ingest.ts';
import { compactArchive } from '../functions/core/archive/compact.ts';
import { DAY_MS } from '../functions/core/archive/layout.ts';
import { archiveReferences } from '../functions/core/detect/archive-references.ts';
import { dryRun } from '../functions/core/detect/preview.ts';
import type { PreviewDeps } from '../functions/core/detect/scan.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { breadthStore, webhookStores } from '../functions/shared/deps.ts';
import { Rng, hash32 } from '../functions/local/demo/random.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';
import type { LiquidationRecord } from '../schemas/datasets.ts';

const MARKETS = 300;
const DAYS = 2;
const FILLS = 60;
const HOUR_MS = 3_600_000;
function dayRows(market: number, day: number, start: number): LiquidationRecord[] {
  const rng = new Rng(hash32(97, market, day));
  const price = 10 ** rng.uniform(-1, 4.8);
  const out: LiquidationRecord[] = [];
  let tradeId = (market * 1_000 + day) * 1_000;
  while (out.length < FILLS) {
    const ts = start + Math.floor(rng.uniform(0, DAY_MS - 1));
    const user = `0x${new Rng(hash32(31, Math.floor(rng.uniform(0, 5000)))).hex(40)}`;
    const fills = 1 + Math.floor(rng.uniform(0, 4));
    const notional = 10 ** rng.uniform(1, 6.5);
    for (let f = 0; f < fills; f++)
      out.push({
        dataset: 'liquidations',
        family: 'perpx',
        symbol: `M${market}`,
        ts,
        trade_id: tradeId++,
        liquidated_user: user,
        price: price.toPrecision(6),
        size: (notional / fills / price).toPrecision(6),
        side: rng.uniform(0, 1) < 0.5 ? 'A' : 'B',
      } as LiquidationRecord);
  }
  return out;
}
const env = await startScratchEmulators();
const first = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAYS * DAY_MS;
const now = first + (DAYS - 1) * DAY_MS + 12.5 * HOUR_MS;
const base = { ...archiveDeps(), clock: { now: () => now } };
for (let d = 0; d < DAYS; d++)
  await ingestRecords(
    base,
    Array.from({ length: MARKETS }, (_, m) => dayRows(m, d, first + d * DAY_MS))
      .flat()
      .filter((r) => r.ts < now),
  );
await compactArchive(base, { datasets: ['liquidations'] });
const timings: { what: string; ms: number }[] = [];
const sql = base.sql;
const deps = {
  ...base,
  sql: {
    ...sql,
    query: async <R extends object>(q: Parameters<typeof sql.query>[0]) => {
      const t = performance.now();
      try {
        return await sql.query<R>(q);
      } finally {
        timings.push({ what: q.sql.replace(/\s+/g, ' ').slice(0, 90), ms: performance.now() - t });
      }
    },
  },
};
const startedAt = Date.now();
const previewDeps: PreviewDeps = {
  store: webhookStores(),
  clock: { now: () => now + (Date.now() - startedAt) },
  archive: deps,
  breadth: breadthStore(),
  references: archiveReferences(deps),
};
for (let i = 0; i < 6; i++) {
  timings.length = 0;
  const t = performance.now();
  const answer = await dryRun(previewDeps, { id: `acct_p${i}`, plan: 'pro' }, { event_type: 'market.liquidation', lookback_s: 86_400, limit: 100 });
  const total = performance.now() - t;
  const sqlMs = timings.reduce((n, x) => n + x.ms, 0);
  console.log(
    `run ${i}: ${total.toFixed(0)} ms, ${timings.length} queries ${sqlMs.toFixed(0)} ms, matched ${answer.matched}, truncated ${answer.truncated}, from ${answer.window.from}`,
  );
  if (i === 5) for (const x of timings.sort((a, b) => b.ms - a.ms).slice(0, 8)) console.log(`   ${x.ms.toFixed(0)} ms  ${x.what}`);
}
await env.stop();
