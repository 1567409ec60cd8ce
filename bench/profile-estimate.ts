/**
 * Ad-hoc profile of 30-day estimates (not part of `npm run bench`) on the archive the previews bench
 * kept (`BENCH_PREVIEW_DIR=... npm run bench -- --only previews` first): each call's SQL and
 * manifest time and the slowest queries. Run:
 * `BENCH_PREVIEW_DIR=... PATH=node_modules/.bin:$PATH node bin/with-local-ca.mjs tsx bench/profile-estimate.ts [event_type ...]`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAY_MS } from '../functions/core/archive/layout.ts';
import { archiveReferences } from '../functions/core/detect/archive-references.ts';
import { estimateWithCost } from '../functions/core/detect/preview.ts';
import type { PreviewDeps } from '../functions/core/detect/scan.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { breadthStore, webhookStores } from '../functions/shared/deps.ts';
import { startScratchEmulators } from '../functions/local/scratch-emulators.ts';

const dir = process.env.BENCH_PREVIEW_DIR;
if (!dir) throw new Error('BENCH_PREVIEW_DIR names the archive the previews bench kept');
const { first, days } = JSON.parse(readFileSync(join(dir, 'bench-previews.json'), 'utf8')) as { first: number; days: number };
const env = await startScratchEmulators({ keepIn: dir });
const now = first + (days - 1) * DAY_MS + 12.5 * 3_600_000;
const base = { ...archiveDeps(), clock: { now: () => now } };
const timings: { what: string; ms: number }[] = [];
const timed =
  <A extends unknown[], R>(what: (...args: A) => string, work: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    const t = performance.now();
    try {
      return await work(...args);
    } finally {
      timings.push({ what: what(...args), ms: performance.now() - t });
    }
  };
const sqlText = (q: Parameters<typeof base.sql.query>[0]) => `sql ${q.sql.replace(/\s+/g, ' ').slice(0, 80)}`;
const sql = {
  ...base.sql,
  query: <Q extends object>(q: Parameters<typeof base.sql.query>[0]) => timed(sqlText, (query: typeof q) => base.sql.query<Q>(query))(q),
  queryColumns: timed(sqlText, base.sql.queryColumns.bind(base.sql)),
};
const manifest = new Proxy(base.manifest, {
  get: (target, name) => {
    const value = Reflect.get(target, name) as unknown;
    return typeof value === 'function'
      ? timed((...args: unknown[]) => `manifest ${String(name)} ${String(args[0])}`, (value as (...a: unknown[]) => Promise<unknown>).bind(target))
      : value;
  },
});
const files = { ...base.files, paths: timed((f: Parameters<typeof base.files.paths>[0]) => `files ${f.length}`, base.files.paths.bind(base.files)) };
const deps = { ...base, sql, manifest, files };
const startedAt = Date.now();
const previewDeps: PreviewDeps = {
  store: webhookStores(),
  clock: { now: () => now + (Date.now() - startedAt) },
  archive: deps,
  breadth: breadthStore(),
  references: archiveReferences(deps),
};
const types = process.argv.slice(2).length ? process.argv.slice(2) : ['market.liquidation', 'market.oi_delta'];
for (const type of types) {
  for (let i = 0; i < 6; i++) {
    timings.length = 0;
    const t = performance.now();
    const cpu = process.cpuUsage();
    const config = type === 'market.liquidation' ? { min_notional_usd: 1_000 } : {};
    const answer = await estimateWithCost(
      previewDeps,
      { id: `acct_profile_${type}_${i}_${Date.now()}`, plan: 'pro' },
      { event_type: type, config, lookback_days: 30 },
    );
    const total = performance.now() - t;
    const used = process.cpuUsage(cpu);
    const by = (prefix: string) => timings.filter((x) => x.what.startsWith(prefix)).reduce((n, x) => n + x.ms, 0);
    console.log(
      `${type} run ${i}: ${total.toFixed(0)} ms, process CPU ${((used.user + used.system) / 1000).toFixed(0)} ms (sql ${by('sql').toFixed(0)}, manifest ${by('manifest').toFixed(0)}, files ${by('files').toFixed(0)}; ${timings.length} calls, summed), basis ${answer.basis.mode}, ${answer.total} occurrences`,
    );
    if (i === 5)
      for (const x of [...timings].sort((a, b) => b.ms - a.ms).slice(0, Number(process.env.PROFILE_TOP ?? 8)))
        console.log(`   ${x.ms.toFixed(0)} ms  ${x.what}`);
  }
}
await env.stop();
