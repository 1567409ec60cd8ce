/** Route group `data-quality`: status, coverage and gaps, incidents, latency and the SLA (core/quality/). */
import { AppError } from '../core/errors.ts';
import { symbolCoverage } from '../core/quality/coverage.ts';
import { allCoverage, exchangeCoverage, getIncident, latencyReport, listIncidents, qualityStatus, slaReport } from '../core/quality/report.ts';
import { timedCache } from '../core/quality/cache.ts';
import { archiveManifest, clock, incidentStore, latencyStore } from '../shared/deps.ts';
import { httpRouteGroup, ok } from '../shared/http.ts';
import { DATA_QUALITY_OPERATIONS } from '../routes/data-quality.ts';

const DAY_MS = 86_400_000;
/** Longest symbol window: a year of days (the manifest is read per day range). */
const MAX_WINDOW_MS = 366 * DAY_MS;
const deps = () => ({ manifest: archiveManifest(), incidents: incidentStore(), latency: latencyStore() });

// Costly reports are kept per container (as the reference service caches them); meta says when each was measured.
const coverage = timedCache(5 * 60_000);
const symbols = timedCache(60_000);
const status = timedCache(60_000);
const sla = timedCache(5 * 60_000);

const answered = <T>(entry: { value: T; cachedAt: number; ttlMs: number }) =>
  ok(entry.value, {
    meta: { cached_at: new Date(entry.cachedAt).toISOString(), cache_ttl_s: entry.ttlMs / 1000 },
    headers: { 'cache-control': `private, max-age=${entry.ttlMs / 1000}` },
  });

export const handler = httpRouteGroup(DATA_QUALITY_OPERATIONS, {
  getDataQualityStatus: async () => answered(await status.get('status', () => qualityStatus(deps(), clock.now()))),
  getDataQualityCoverage: async () => answered(await coverage.get('all', () => allCoverage(archiveManifest(), clock.now()))),
  getExchangeCoverage: async ({ params }) =>
    answered(await coverage.get(`exchange|${params.exchange}`, () => exchangeCoverage(archiveManifest(), params.exchange!, clock.now()))),
  getSymbolCoverage: async ({ params, query }) => {
    const now = clock.now();
    // A default window ends at the current minute, so repeated calls share the cached answer.
    const to = query.to ?? Math.floor(now / 60_000) * 60_000;
    const from = query.from ?? to - 30 * DAY_MS;
    if (from >= to) throw new AppError('invalid_time_range', 'from must be before to.', { param: 'from' });
    if (to - from > MAX_WINDOW_MS) throw new AppError('invalid_time_range', 'The window may span at most 366 days.', { param: 'from' });
    const exchange = params.exchange!;
    const entry = await symbols.get(`${exchange}|${params.symbol}|${from}|${to}`, async () => ({
      exchange,
      symbol: params.symbol,
      data_types: await symbolCoverage(archiveManifest(), exchange, params.symbol, from, to, now),
    }));
    return answered(entry);
  },
  listIncidents: async ({ query }) => ok(await listIncidents(deps(), query, clock.now())),
  getIncident: async ({ params }) => ok(await getIncident(deps(), params.id, clock.now())),
  getLatency: async () => ok(await latencyReport(deps(), clock.now())),
  getSla: async ({ query }) => {
    const now = new Date(clock.now());
    const year = query.year ?? now.getUTCFullYear();
    const month = query.month ?? now.getUTCMonth() + 1;
    return answered(await sla.get(`${year}-${month}`, () => slaReport(deps(), year, month, now.getTime())));
  },
});
