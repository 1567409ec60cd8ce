/**
 * The altx venue names its markets by number (`market_id`); the archive by symbol in the family's
 * form. A recording's ids are read through the markets its own `orderBooks` / `orderBookDetails`
 * answers describe, else through the family's instrument registry (the `market_id` of the
 * instruments rows those answers became when an earlier recording was ingested), else refused.
 */
import type { InstrumentRecord } from '#schemas/datasets.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import { SYMBOL_FORMS, type Family } from '../venues.ts';
import { readWindow } from './read-pages.ts';
import { epochMsOf, type AltxMarketDef } from './altx-shapes.ts';

/**
 * A market as the archive names it; `archived: false` when the family has no symbol form for it
 * (altx's spot pairs: the family serves perps only), so its rows are left out, not refused.
 */
export type AltxMarket = { archived: true; symbol: string; marketType: 'perp' | 'spot'; szDecimals?: number } | { archived: false; venueSymbol: string };
export type AltxMarkets = ReadonlyMap<number, AltxMarket>;

/** The quote asset of each altx family: the fee token of its trades. */
export const ALTX_QUOTE: Readonly<Record<'altx' | 'altx-rh', string>> = { altx: 'USDC', 'altx-rh': 'USDG' };

/** How the family names a venue market: perps bare (`ETH`), spot pairs dashed (`ETH/USDG` -> `ETH-USDG`). */
export function marketOf(family: Family, def: AltxMarketDef): AltxMarket {
  const marketType = def.market_type ?? (def.symbol.includes('/') ? 'spot' : 'perp');
  const symbol = def.symbol.replace('/', '-');
  // A perp's symbol with a dash would read as a spot pair in altx-rh's forms.
  const fits = SYMBOL_FORMS[family].pattern.test(symbol) && (marketType === 'spot') === symbol.includes('-');
  if (!fits) return { archived: false, venueSymbol: def.symbol };
  const szDecimals = def.size_decimals ?? def.supported_size_decimals ?? undefined;
  return { archived: true, symbol, marketType, ...(szDecimals != null && { szDecimals }) };
}

const EPOCH_FLOOR = Date.UTC(2010, 0, 1);

/**
 * The market's instrument record at its listing time (`created_at`), else at `fallbackTs` (when the
 * answer was received); none when neither is known or the family does not archive the market.
 */
export function instrumentOf(family: Family, def: AltxMarketDef, fallbackTs: number | undefined): InstrumentRecord | undefined {
  const market = marketOf(family, def);
  if (!market.archived || market.szDecimals === undefined) return undefined;
  const listed = def.created_at == null ? undefined : epochMsOf(Number(def.created_at));
  // Placeholder listing times ("1") are no listing time.
  const ts = listed !== undefined && listed >= EPOCH_FLOOR ? listed : fallbackTs;
  if (ts === undefined) return undefined;
  const imf = def.min_initial_margin_fraction;
  return {
    dataset: 'instruments',
    family,
    symbol: market.symbol,
    ts,
    market_type: market.marketType,
    sz_decimals: market.szDecimals,
    market_id: def.market_id,
    // The initial margin fraction is in hundredths of a percent: 500 is 5%, 20x.
    ...(imf != null && imf > 0 && { max_leverage: Math.max(1, Math.floor(10_000 / imf)) }),
    ...(market.marketType === 'spot' && { quote: market.symbol.split('-')[1] }),
  };
}

/**
 * The family's registry as market ids: the newest instrument record per id (a delisted id that
 * was listed again names its newest market).
 */
export async function registryMarkets(deps: ArchiveDeps, family: Family): Promise<Map<number, AltxMarket>> {
  const { rows } = await readWindow(deps, {
    dataset: 'instruments',
    family,
    from: 0,
    to: deps.clock.now(),
    limit: 100_000,
    filter: { sql: 'market_id IS NOT NULL', params: {} },
  });
  const markets = new Map<number, AltxMarket>();
  // Rows come oldest first: a later record of an id replaces an earlier one.
  for (const row of rows) {
    const symbol = String(row.symbol);
    markets.set(Number(row.market_id), {
      archived: true,
      symbol,
      marketType: row.market_type === 'spot' ? 'spot' : 'perp',
      szDecimals: Number(row.sz_decimals),
    });
  }
  return markets;
}
