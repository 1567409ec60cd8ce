/**
 * Per-market convenience reads: the latest state of a market (summary) and how fresh each of its
 * datasets is (freshness), both measured from the archive. Each part is the newest record of one
 * dataset read newest file first, or a 24-hour aggregate, so neither scans more than a day.
 */
import { AppError } from '../errors.ts';
import { isSymbolOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';
import { minuteCandleSource } from '../archive/read-candles.ts';
import { newestRow } from '../archive/read-pages.ts';
import { windowSource } from '../archive/read.ts';
import { LIQUIDATION_SUMS } from './liquidations.ts';
import { coverageStart } from '../archive/coverage.ts';
import type { Dataset } from '#schemas/datasets.ts';
import type { CoinFreshness, CoinSummary } from '#schemas/market.ts';

const DAY = 86_400_000;
/** How far back the newest record is looked for; older than this is reported as unknown. */
const LOOKBACK_MS = 7 * DAY;

const has = (dataset: Dataset, family: Family) => coverageStart(dataset, family) !== undefined;
const iso = (ts: number) => new Date(ts).toISOString();

/** The newest stored row of a market's dataset in the lookback, as stored. */
const newest = async (deps: ArchiveDeps, dataset: Exclude<Dataset, 'candles_1m'>, family: Family, symbol: string, now: number): Promise<Row | undefined> =>
  has(dataset, family) ? newestRow(deps, { dataset, family, symbol, from: now - LOOKBACK_MS, to: now }) : undefined;

async function volume24h(deps: ArchiveDeps, family: Family, symbol: string, now: number): Promise<string | undefined> {
  const source = has('candles_1m', family) ? await minuteCandleSource(deps, { family, symbol, from: now - DAY, to: now }) : undefined;
  if (!source) return undefined;
  const [row] = await deps.sql.query({ sql: `SELECT printf('%.2f', sum(quote_volume)) AS usd FROM (${source.sql})`, params: source.params });
  return row?.usd == null ? undefined : String(row.usd);
}

async function liquidations24h(deps: ArchiveDeps, family: Family, symbol: string, now: number): Promise<Row | undefined> {
  const source = has('liquidations', family) ? await windowSource(deps, { dataset: 'liquidations', family, symbol, from: now - DAY, to: now }) : undefined;
  if (!source) return has('liquidations', family) ? { total: 0, long: 0, short: 0 } : undefined;
  const [row] = await deps.sql.query({
    sql: `SELECT round(coalesce(total_usd, 0), 4) AS total, round(long_usd, 4) AS long, round(short_usd, 4) AS short
          FROM (SELECT ${LIQUIDATION_SUMS} FROM (${source.sql}))`,
    params: source.params,
  });
  return row;
}

const decimal = (value: unknown) => (value == null ? undefined : String(value));

/**
 * The latest mark, oracle and mid price and open interest (from the newest open-interest sample),
 * funding rate and premium, 24-hour traded notional and liquidated notional. A member the family
 * does not have, or without a record in the last 7 days, is absent. 404 when nothing is known.
 */
export async function marketSummary(deps: ArchiveDeps, family: Family, symbol: string, now: number): Promise<CoinSummary> {
  const notFound = () => new AppError('not_found', `No recent data for ${symbol} on ${family}.`, { param: 'symbol' });
  if (!isSymbolOf(family, symbol)) throw notFound();
  const [oi, funding, volume, liquidated] = await Promise.all([
    newest(deps, 'open_interest', family, symbol, now),
    newest(deps, 'funding', family, symbol, now),
    volume24h(deps, family, symbol, now),
    liquidations24h(deps, family, symbol, now),
  ]);
  const latest = Math.max(Number(oi?.ts ?? -1), Number(funding?.ts ?? -1));
  if (latest < 0 && volume === undefined) throw notFound();
  const summary: CoinSummary = {
    symbol,
    coin: symbol,
    timestamp: iso(latest < 0 ? now : latest),
    mark_price: decimal(oi?.mark_price),
    oracle_price: decimal(oi?.oracle_price),
    mid_price: decimal(oi?.mid_price),
    funding_rate: decimal(funding?.funding_rate),
    premium: decimal(funding?.premium),
    open_interest: decimal(oi?.open_interest),
    volume_24h: volume,
    ...(liquidated && {
      liquidation_volume_24h: Number(liquidated.total),
      long_liquidation_volume_24h: Number(liquidated.long),
      short_liquidation_volume_24h: Number(liquidated.short),
    }),
  };
  return Object.fromEntries(Object.entries(summary).filter(([, value]) => value !== undefined)) as CoinSummary;
}

/** The freshness buckets and the dataset each measures; a family reports the buckets whose dataset it has. */
const FRESHNESS = [
  { bucket: 'orderbook', dataset: 'l2_snapshots' },
  { bucket: 'trades', dataset: 'trades' },
  { bucket: 'funding', dataset: 'funding' },
  { bucket: 'open_interest', dataset: 'open_interest' },
  { bucket: 'liquidations', dataset: 'liquidations' },
  { bucket: 'liquidations', dataset: 'altx_liquidations' },
  // TWAP lifecycles are a spot freshness bucket; perpetual families report the five above.
  { bucket: 'twap', dataset: 'twaps', families: ['spot'] },
] as const satisfies readonly { bucket: keyof CoinFreshness; dataset: Exclude<Dataset, 'candles_1m'>; families?: readonly Family[] }[];

/** Per dataset: the newest record's time and how far it is behind `now` (null when none in 7 days). */
export async function marketFreshness(deps: ArchiveDeps, family: Family, symbol: string, now: number): Promise<CoinFreshness> {
  if (!isSymbolOf(family, symbol)) throw new AppError('not_found', `${symbol} is not a ${family} symbol.`, { param: 'symbol' });
  const buckets = FRESHNESS.filter((f) => has(f.dataset, family) && (!('families' in f) || (f.families as readonly Family[]).includes(family)));
  const measured = await Promise.all(
    buckets.map(async ({ bucket, dataset }) => {
      const row = await newest(deps, dataset, family, symbol, now);
      const ts = row ? Number(row.ts) : undefined;
      return [bucket, { last_updated: ts === undefined ? null : iso(ts), lag_ms: ts === undefined ? null : Math.max(0, now - ts) }] as const;
    }),
  );
  const byBucket = Object.fromEntries(measured) as Record<(typeof buckets)[number]['bucket'], { last_updated: string | null; lag_ms: number | null }>;
  return { symbol, coin: symbol, exchange: family, measured_at: iso(now), ...byBucket } as CoinFreshness;
}
