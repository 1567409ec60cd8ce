/**
 * The venue's spot metadata, as its info endpoint answers `spotMeta` (`{universe, tokens}`) or
 * `spotMetaAndAssetCtxs` (`[spotMeta, contexts]`): the pairs (`universe`: `name`, `index`, the
 * `tokens` [base, quote] it pairs, by token index) and the tokens (`name`, `index`, decimals).
 * The first pairs are named `PURR/USDC`; later ones only by index (`@107`), which is how the
 * node's files and the archive name them too. Ingested (`spot_meta`), every pair becomes a spot
 * instrument with its token details, named `BASE-QUOTE` from its tokens; ingest then names the
 * `@N` coins of other files through those instruments (`spotNamesOf`).
 */
import * as v from 'valibot';
import { DATASETS, type InstrumentRecord, type SpotPairDetails } from '#schemas/datasets.ts';
import { isSymbolOf } from '../venues.ts';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
// v.object (not strictObject): the venue adds fields (evmContract, fullName, deployer fee shares...).
const Token = v.object({ name: v.pipe(v.string(), v.minLength(1)), index: count, szDecimals: v.pipe(count, v.maxValue(18)), weiDecimals: count });
const Pair = v.object({
  name: v.pipe(v.string(), v.minLength(1)),
  index: count,
  tokens: v.pipe(v.array(count), v.length(2, 'must be [base, quote] token indices')),
  isCanonical: v.optional(v.boolean()),
});
const SpotMetaObject = v.object({ universe: v.array(Pair), tokens: v.array(Token) });
export type SpotMeta = v.InferOutput<typeof SpotMetaObject>;

/** The metadata in `spotMeta`'s answer, or in the `[spotMeta, contexts]` pair `spotMetaAndAssetCtxs` answers; else what is wrong. */
export function spotMetaOf(json: unknown): SpotMeta | { error: string } {
  const meta = v.safeParse(SpotMetaObject, Array.isArray(json) ? json[0] : json);
  if (meta.success) return meta.output;
  const issue = meta.issues[0];
  return { error: `${Array.isArray(json) ? '0.' : ''}${v.getDotPath(issue) ?? 'the metadata'}: ${issue.message}` };
}

/**
 * A spot pair's listing time is not in the metadata: pairs are listed from `at` when the file was
 * given one, else from the first instant the spot family covers, so every spot row of the archive
 * can be named and an instrument record of a later time (the venue's own registry) still wins.
 */
const LISTED_FROM = DATASETS.trades.coverage.spot;

/** The symbol of each pair index, and its instrument record. */
export interface SpotPair {
  index: number;
  symbol: string;
  record: InstrumentRecord;
}

/**
 * Each pair of the metadata as an instrument: `PURR/USDC` as `PURR-USDC`, `@107` as its tokens'
 * names (`HYPE-USDC`); a pair whose tokens' names do not make a symbol of the family's form (lower
 * case letters, such as `kHYPE`) or would repeat another pair's keeps its index name (`@107`).
 */
export function spotPairsOf(meta: SpotMeta, at: number = LISTED_FROM): SpotPair[] | { error: string } {
  const tokens = new Map(meta.tokens.map((t) => [t.index, t]));
  const taken = new Set<string>();
  const pairs: SpotPair[] = [];
  for (const pair of meta.universe) {
    const [base, quote] = [tokens.get(pair.tokens[0]!), tokens.get(pair.tokens[1]!)];
    if (!base || !quote)
      return { error: `pair ${pair.name} (index ${pair.index}) names token ${pair.tokens.find((t) => !tokens.has(t))}, which tokens do not list` };
    const named = pair.name.includes('/') ? pair.name.replace('/', '-') : `${base.name}-${quote.name}`;
    const symbol = isSymbolOf('spot', named) && !taken.has(named) ? named : `@${pair.index}`;
    taken.add(symbol);
    const details: SpotPairDetails = {
      pair_index: pair.index,
      name: pair.name,
      is_canonical: pair.isCanonical ?? pair.name.includes('/'),
      base_token: base.name,
      base_token_id: base.index,
      base_wei_decimals: base.weiDecimals,
      quote_token_id: quote.index,
      quote_sz_decimals: quote.szDecimals,
      quote_wei_decimals: quote.weiDecimals,
    };
    pairs.push({
      index: pair.index,
      symbol,
      record: {
        dataset: 'instruments',
        family: 'spot',
        symbol,
        ts: at,
        market_type: 'spot',
        sz_decimals: base.szDecimals,
        quote: quote.name,
        spot_pair: details,
      },
    });
  }
  return pairs;
}

/** Pair index -> symbol, from the spot family's instrument rows (their `spot_pair` column, JSON text or object). */
export function spotNamesOf(rows: readonly Record<string, unknown>[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const row of rows) {
    if (row.spot_pair == null) continue;
    const pair = (typeof row.spot_pair === 'string' ? JSON.parse(row.spot_pair) : row.spot_pair) as { pair_index?: unknown };
    if (typeof pair.pair_index === 'number') names.set(pair.pair_index, String(row.symbol));
  }
  return names;
}

/** The symbol a spot coin named by index has, given the names known (itself when none). */
export function nameSpot(symbol: string, names: ReadonlyMap<number, string> | undefined): string {
  if (!names || !symbol.startsWith('@')) return symbol;
  return names.get(Number(symbol.slice(1))) ?? symbol;
}
