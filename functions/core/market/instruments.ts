/**
 * The point-in-time instrument registry of a family, as the instruments route answers it: the
 * registry's rows (registry-views.ts) with the members each family's clients read.
 */
import { AppError } from '../errors.ts';
import { dexOf, type Family } from '../venues.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';
import type { Instrument } from '#schemas/market.ts';
import { outcomeSideOf, registryEntries } from './registry-views.ts';

/**
 * What a family's clients read beside the core members: a hip3 market's `coin`, builder `namespace`
 * and `ticker` (from its `dex:TICKER` symbol); a hip4 side's `coin` (`#N`), `outcome_id`, `side` and
 * `asset_id` (from its registry record). Other families have none of them (absent, not null).
 */
function familyMembers(family: Family, symbol: string, row: Row): Partial<Instrument> {
  const namespace = family === 'hip3' ? dexOf(symbol) : undefined;
  if (namespace !== undefined) return { coin: symbol, namespace, ticker: symbol.slice(namespace.length + 1) };
  const side = family === 'hip4' ? outcomeSideOf(row) : undefined;
  return side ? { coin: symbol, outcome_id: side.outcome_id, side: side.side, asset_id: side.asset_id } : {};
}

/**
 * The point-in-time instrument registry of a family: instruments listed at or before `at`. A member
 * that does not apply (no leverage on spot, no dex outside hip3, not delisted) is absent.
 */
export async function instruments(deps: ArchiveDeps, family: Family, at: number): Promise<Instrument[]> {
  return (await registryEntries(deps, family, at))
    .map(({ row }) => {
      const delistedAt = row.delisted_at == null ? null : Number(row.delisted_at);
      return {
        symbol: String(row.symbol),
        name: String(row.symbol),
        ...familyMembers(family, String(row.symbol), row),
        // Ingest validated market_type against the same picklist the response schema publishes.
        instrument_type: row.market_type as Instrument['instrument_type'],
        sz_decimals: Number(row.sz_decimals),
        ...(row.max_leverage != null && { max_leverage: Number(row.max_leverage) }),
        ...(row.dex != null && { dex: String(row.dex) }),
        ...(row.quote != null && { quote: String(row.quote) }),
        is_active: delistedAt === null || delistedAt > at,
        listed_at: new Date(Number(row.ts)).toISOString(),
        ...(delistedAt !== null && { delisted_at: new Date(delistedAt).toISOString() }),
      };
    })
    .sort((a, b) => a.symbol.localeCompare(b.symbol));
}

/** One instrument of the registry at `at`, or not_found naming the symbol. */
export async function instrument(deps: ArchiveDeps, family: Family, symbol: string, at: number): Promise<Instrument> {
  const found = (await instruments(deps, family, at)).find((i) => i.symbol === symbol);
  if (!found) throw new AppError('not_found', `No instrument ${symbol} on ${family}.`, { param: 'symbol' });
  return found;
}
