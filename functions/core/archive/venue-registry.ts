/**
 * What ingest of the venue's own files asks of the instrument registry: the names of the spot
 * pairs those files give by index (`@107`, named by the spot metadata ingested before: spot-meta.ts),
 * and an instrument for every symbol the registry has never seen, so a service fed real files alone
 * lists the markets it serves.
 *
 * An instrument made here says what the files say: its family's market type, the dex of a hip3
 * market, the quote of a spot pair named `BASE-QUOTE` (core perps quote USDC), listed at its first
 * row in the batch. Size decimals are the most the batch's sizes (and open interest) carry,
 * trailing zeros aside: a lower bound of the venue's, 0 when the batch holds none (funding only). The
 * registry keeps the newest record of a symbol, so the venue's own instrument records, ingested
 * later and listed later, replace these.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { InstrumentRecord, NormalizedRecord } from '#schemas/datasets.ts';
import { dexOf, type Family } from '../venues.ts';
import { readWindow } from './read-pages.ts';
import { spotNamesOf } from './spot-meta.ts';

/** The families of the venue whose files ingest reads, and the market type their instruments have. */
const MARKET_TYPES: Partial<Record<Family, InstrumentRecord['market_type']>> = { perpx: 'perp', hip3: 'perp', spot: 'spot', hip4: 'outcome' };

/** Every instrument row of a family listed up to `at` (the registry is small: one row per listing). */
async function registryRows(deps: ArchiveDeps, family: Family, at: number) {
  return (await readWindow(deps, { dataset: 'instruments', family, from: 0, to: at, limit: 100_000 })).rows;
}

/** Spot pair index -> symbol, as the spot instruments name them (empty when no spot metadata was ingested). */
export async function spotNames(deps: ArchiveDeps): Promise<Map<number, string>> {
  return spotNamesOf(await registryRows(deps, 'spot', deps.clock.now()));
}

/** `family#symbol` of every instrument the registry holds, for the families the records touch. */
export async function knownSymbols(deps: ArchiveDeps, records: readonly NormalizedRecord[]): Promise<Set<string>> {
  const families = [...new Set(records.map((r) => r.family as Family))].filter((f) => MARKET_TYPES[f] !== undefined);
  const rows = (await Promise.all(families.map((family) => registryRows(deps, family, deps.clock.now())))).flat();
  return new Set(rows.map((row) => `${String(row.family)}#${String(row.symbol)}`));
}

/** Digits after the point, trailing zeros aside (`'0.0172'` -> 4, `'100.0'` -> 0). */
const fractionDigits = (size: string) => {
  const dot = size.indexOf('.');
  return dot < 0 ? 0 : size.slice(dot + 1).replace(/0+$/, '').length;
};

/** The sizes a record carries: a trade's, a diff's, every order of a checkpoint, every level of a snapshot. */
function sizesOf(record: NormalizedRecord): string[] {
  switch (record.dataset) {
    case 'trades':
    case 'liquidations':
      return [record.size];
    case 'l4_diffs':
      return record.new_size ? [record.new_size] : [];
    case 'order_events':
      return record.size ? [record.size] : [];
    case 'l4_checkpoints':
      return [...record.bids, ...record.asks].map((order) => order[3]);
    case 'l2_snapshots':
      return [...record.bids, ...record.asks].map((level) => level[1]);
    // A sum of positions, so in the market's size steps, when it is written exactly; a double's
    // print of it (`0.30000000000000004`, seen in the archive's CSV) says nothing of the steps.
    case 'open_interest':
      return fractionDigits(record.open_interest) <= 8 ? [record.open_interest] : [];
    default:
      return [];
  }
}

/** Instruments for the symbols of `records` that `known` (`family#symbol`) and the batch's own instrument records lack. */
export function unseenInstruments(records: readonly NormalizedRecord[], known: ReadonlySet<string>): InstrumentRecord[] {
  const listed = new Set(records.filter((r) => r.dataset === 'instruments').map((r) => `${r.family}#${r.symbol}`));
  const seen = new Map<string, { family: Family; symbol: string; ts: number; decimals: number }>();
  for (const record of records) {
    const family = record.family as Family;
    const key = `${family}#${record.symbol}`;
    if (MARKET_TYPES[family] === undefined || known.has(key) || listed.has(key)) continue;
    let entry = seen.get(key);
    if (!entry) seen.set(key, (entry = { family, symbol: record.symbol, ts: record.ts, decimals: 0 }));
    entry.ts = Math.min(entry.ts, record.ts);
    for (const size of sizesOf(record)) entry.decimals = Math.max(entry.decimals, fractionDigits(size));
  }
  return [...seen.values()].map(({ family, symbol, ts, decimals }) => {
    const quote = family === 'perpx' ? 'USDC' : family === 'spot' && symbol.includes('-') ? symbol.slice(symbol.indexOf('-') + 1) : undefined;
    const dex = family === 'hip3' ? dexOf(symbol) : undefined;
    return {
      dataset: 'instruments',
      family,
      symbol,
      ts,
      market_type: MARKET_TYPES[family]!,
      sz_decimals: Math.min(decimals, 18),
      ...(quote !== undefined && { quote }),
      ...(dex !== undefined && { dex }),
    };
  });
}
