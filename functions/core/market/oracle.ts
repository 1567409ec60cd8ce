/**
 * hip3 oracle reads from the newest open-interest sample of the last day, whose `oracle_price` is
 * the price the dex's deployer pushed (the external price) and `mark_price` the mark: the two side
 * by side, and the instantaneous discovery bounds, reference x (1 +- 1 / max_leverage), with the
 * external price as reference when the sample has one and the mark otherwise.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { newestRow } from '../archive/read-pages.ts';
import { DAY } from './queries.ts';
import { blocksAt } from './blocks.ts';
import { registryEntries } from './registry-views.ts';
import type { Hip3OracleBounds, Hip3OracleExternal } from '#schemas/oracle.ts';

const price = (value: unknown) => (value == null || !(Number(value) > 0) ? null : Number(value));

export async function externalPrice(deps: ArchiveDeps, symbol: string, now: number): Promise<Hip3OracleExternal> {
  const row = await newestRow(deps, { dataset: 'open_interest', family: 'hip3', symbol, from: now - DAY, to: now });
  if (!row) throw new AppError('not_found', `No oracle sample of ${symbol} on hip3 in the day before now.`, { param: 'symbol' });
  const ts = Number(row.ts);
  const blocks = await blocksAt(deps, 'hip3', symbol, [ts]);
  return {
    symbol,
    external_price: price(row.oracle_price),
    mark_price: price(row.mark_price),
    block_number: blocks.get(ts) ?? 0,
    timestamp: new Date(ts).toISOString(),
    timestamp_ms: ts,
  };
}

/** The bounds around a sample's reference price; undefined when the sample has neither price. */
export function discoveryBounds(sample: Pick<Hip3OracleExternal, 'external_price' | 'mark_price'>, maxLeverage: number) {
  const reference = sample.external_price ?? sample.mark_price;
  if (reference === null) return undefined;
  const fraction = 1 / maxLeverage;
  return {
    reference_price: reference,
    reference_source: sample.external_price !== null ? ('external' as const) : ('mark' as const),
    max_leverage: maxLeverage,
    bound_fraction: fraction,
    lower_bound: reference * (1 - fraction),
    upper_bound: reference * (1 + fraction),
  };
}

export async function discoveryBoundsOf(deps: ArchiveDeps, symbol: string, now: number): Promise<Hip3OracleBounds> {
  const [sample, entries] = await Promise.all([externalPrice(deps, symbol, now), registryEntries(deps, 'hip3', now)]);
  const maxLeverage = Number(entries.find((e) => e.symbol === symbol)?.row.max_leverage);
  if (!(maxLeverage >= 1)) throw new AppError('not_found', `No max leverage for ${symbol} in the hip3 registry: no discovery bounds.`, { param: 'symbol' });
  const bounds = discoveryBounds(sample, maxLeverage);
  if (!bounds) throw new AppError('not_found', `The newest oracle sample of ${symbol} has neither an external nor a mark price.`, { param: 'symbol' });
  const { symbol: _, external_price: _e, mark_price: _m, ...time } = sample;
  return { symbol, ...bounds, ...time };
}
