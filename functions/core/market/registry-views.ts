/**
 * Views of the instrument registry a family has beside its instrument list: spot pairs (the token
 * registry) and hip4 outcomes (both sides of a market, with settlement and open interest). The
 * registry is point in time: what was listed at or before `at`, the newest record per symbol.
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Row } from '#ports/sql.ts';
import { newestRow, readWindow } from '../archive/read-pages.ts';
import { windowFiles, windowSource } from '../archive/read.ts';
import { decodeCursor, encodeCursor, requestFingerprint } from './cursor.ts';
import type { Family } from '../venues.ts';
import { OutcomeSideDetails, SpotPairDetails } from '#schemas/datasets.ts';
import type { Outcome, SpotPair } from '#schemas/market.ts';
import { LATEST_EPOCH_MS } from '#schemas/params.ts';
import * as v from 'valibot';

const iso = (ts: number) => new Date(ts).toISOString();
const DAY = 86_400_000;

interface RegistryEntry {
  symbol: string;
  firstSeen: number;
  lastUpdated: number;
  row: Row;
}

/**
 * Every registry record of a family, in listing order. A registry spans years of listing days, one
 * small file each, read on every instrument call: the container remembers it with those files.
 */
async function registryRows(deps: ArchiveDeps, family: Family): Promise<readonly Row[]> {
  const req = { dataset: 'instruments' as const, family, from: 0, to: LATEST_EPOCH_MS };
  const files = await windowFiles(deps, req);
  const key = `instruments/${family}`;
  const remembered = deps.views?.get(key, files);
  if (remembered) return remembered;
  const source = await windowSource(deps, req, files);
  const rows = source ? await deps.sql.query<Row>({ sql: `SELECT * FROM (${source.sql}) ORDER BY ts, symbol`, params: source.params }) : [];
  deps.views?.set(key, files, rows);
  return rows;
}

/** The newest registry record per symbol listed at or before `at`, with when the symbol was first seen. */
export async function registryEntries(deps: ArchiveDeps, family: Family, at: number): Promise<RegistryEntry[]> {
  const entries = new Map<string, RegistryEntry>();
  // Rows come in listing order: the newest record of a symbol wins, its first one says when it was first seen.
  for (const row of await registryRows(deps, family)) {
    if (Number(row.ts) > at) break;
    const symbol = String(row.symbol);
    const firstSeen = entries.get(symbol)?.firstSeen ?? Number(row.ts);
    entries.set(symbol, { symbol, firstSeen, lastUpdated: Number(row.ts), row });
  }
  return [...entries.values()];
}

/** A JSON column of the registry, checked against the schema ingest validated it with. */
function details<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> | undefined {
  if (value == null) return undefined;
  const parsed = v.safeParse(schema, typeof value === 'string' ? JSON.parse(value) : value);
  return parsed.success ? parsed.output : undefined;
}

export async function spotPairs(deps: ArchiveDeps, at: number): Promise<SpotPair[]> {
  return (await registryEntries(deps, 'spot', at))
    .flatMap(({ symbol, firstSeen, lastUpdated, row }) => {
      const pair = details(SpotPairDetails, row.spot_pair);
      if (!pair) return [];
      return [
        {
          symbol,
          coin: symbol,
          pair_index: pair.pair_index,
          name: pair.name,
          is_canonical: pair.is_canonical,
          base_token_id: pair.base_token_id,
          quote_token_id: pair.quote_token_id,
          base_token_name: pair.base_token,
          quote_token_name: String(row.quote ?? 'USDC'),
          base_sz_decimals: Number(row.sz_decimals),
          base_wei_decimals: pair.base_wei_decimals,
          quote_sz_decimals: pair.quote_sz_decimals,
          quote_wei_decimals: pair.quote_wei_decimals,
          first_seen_at: iso(firstSeen),
          last_updated_at: iso(lastUpdated),
        },
      ];
    })
    .sort((a, b) => a.pair_index - b.pair_index);
}

export async function spotPair(deps: ArchiveDeps, symbol: string, at: number): Promise<SpotPair> {
  const pair = (await spotPairs(deps, at)).find((p) => p.symbol === symbol);
  if (!pair) throw new AppError('not_found', `No spot pair ${symbol}.`, { param: 'symbol' });
  return pair;
}

/** `class:priceBinary|underlying:BTC|expiry:20261201-0800|targetPrice:70000|period:1d`, read into members. */
function describedBy(description: string): Pick<Outcome, 'class' | 'underlying' | 'expiry' | 'target_price' | 'period'> {
  const fields = new Map(description.split('|').map((part) => [part.slice(0, part.indexOf(':')), part.slice(part.indexOf(':') + 1)] as const));
  const expiry = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})$/.exec(fields.get('expiry') ?? '');
  const target = Number(fields.get('targetPrice'));
  return {
    ...(fields.has('class') && { class: fields.get('class') }),
    ...(fields.has('underlying') && { underlying: fields.get('underlying') }),
    ...(expiry && { expiry: `${expiry[1]}-${expiry[2]}-${expiry[3]}T${expiry[4]}:${expiry[5]}:00.000Z` }),
    ...(fields.has('targetPrice') && Number.isFinite(target) && { target_price: target }),
    ...(fields.has('period') && { period: fields.get('period') }),
  };
}

/** True when the side has a settlement record between its listing and `at` (one read of its own files). */
async function hasSettled(deps: ArchiveDeps, entry: RegistryEntry, at: number): Promise<boolean> {
  const { rows } = await readWindow(deps, { dataset: 'settlements', family: 'hip4', symbol: entry.symbol, from: entry.firstSeen, to: at, limit: 1 });
  return rows.length > 0;
}

/** A hip4 side's outcome details from its registry record (undefined for any other instrument). */
export const outcomeSideOf = (row: Row) => details(OutcomeSideDetails, row.outcome);

/** Every outcome listed at or before `at`, by id, with whether it has settled (its Yes side's settlement). */
export async function outcomes(deps: ArchiveDeps, at: number): Promise<Outcome[]> {
  const sides = new Map<number, { entry: RegistryEntry; side: OutcomeSideDetails }[]>();
  for (const entry of await registryEntries(deps, 'hip4', at)) {
    const side = details(OutcomeSideDetails, entry.row.outcome);
    if (side)
      sides.set(
        side.outcome_id,
        [...(sides.get(side.outcome_id) ?? []), { entry, side }].sort((a, b) => a.side.side - b.side.side),
      );
  }
  // Both sides of an outcome settle together: the first side's record says it.
  const settledIds = await Promise.all([...sides].map(async ([id, both]) => ((await hasSettled(deps, both[0]!.entry, at)) ? id : undefined)));
  const settled = new Set(settledIds.filter((id) => id !== undefined));
  return [...sides]
    .sort(([a], [b]) => a - b)
    .map(([id, both]) => {
      const { side: first } = both[0]!;
      const isSettled = settled.has(id);
      return {
        outcome_id: id,
        name: first.name,
        description_raw: first.description,
        ...describedBy(first.description),
        side_specs: both.map(({ entry, side }) => ({
          side: side.side,
          name: side.side_name,
          coin: entry.symbol,
          asset_id: side.asset_id,
          display_title: `${side.display_title} ${side.side_name}`,
          slug: `${side.slug}-${side.side_name.toLowerCase()}`,
        })),
        is_settled: isSettled,
        status: isSettled ? 'settled' : 'live',
        source_seen_at: iso(Math.max(...both.map(({ entry }) => entry.lastUpdated))),
        display_title: first.display_title,
        slug: first.slug,
        outcome_pair: both.map(({ entry }) => entry.symbol),
      };
    });
}

export interface OutcomesRequest {
  isSettled?: boolean;
  slug?: string;
  limit: number;
  cursor?: string;
}

/** A page of outcomes by id; `slug` matches the outcome's or a side's slug. */
export async function outcomesPage(deps: ArchiveDeps, req: OutcomesRequest, now: number): Promise<{ data: Outcome[]; nextCursor: string | null }> {
  const fingerprint = requestFingerprint({ route: 'outcomes', is_settled: req.isSettled, slug: req.slug });
  const after = req.cursor ? Number(decodeCursor(req.cursor, fingerprint).position[0]) : -1;
  const matching = (await outcomes(deps, now)).filter(
    (o) =>
      o.outcome_id > after
      && (req.isSettled === undefined || o.is_settled === req.isSettled)
      && (req.slug === undefined || o.slug === req.slug || o.side_specs.some((s) => s.slug === req.slug)),
  );
  const data = matching.slice(0, req.limit);
  const more = matching.length > req.limit;
  return { data, nextCursor: more ? encodeCursor(fingerprint, { window: [0, 0], position: [data.at(-1)!.outcome_id] }) : null };
}

/** The outcome whose slug, or one of whose sides' slugs, this is, read as `outcome` reads it. */
export async function outcomeBySlug(deps: ArchiveDeps, slug: string, now: number): Promise<Outcome> {
  const found = (await outcomes(deps, now)).find((o) => o.slug === slug || o.side_specs.some((s) => s.slug === slug));
  if (!found) throw new AppError('not_found', `No outcome or outcome side with slug ${slug}.`, { param: 'slug' });
  return outcome(deps, found.outcome_id, now);
}

/** One outcome with the open interest of both sides, from each side's newest sample of the last day. */
export async function outcome(deps: ArchiveDeps, id: number, now: number): Promise<Outcome> {
  const found = (await outcomes(deps, now)).find((o) => o.outcome_id === id);
  if (!found) throw new AppError('not_found', `No outcome ${id}.`, { param: 'outcome_id' });
  const [side0, side1] = await Promise.all(
    found.outcome_pair.map((symbol) => newestRow(deps, { dataset: 'open_interest', family: 'hip4', symbol, from: now - DAY, to: now })),
  );
  if (!side0 || !side1) return found;
  const [oi0, oi1] = [Number(side0.open_interest), Number(side1.open_interest)];
  return {
    ...found,
    aggregated_oi: {
      side0_open_interest_contracts: oi0,
      side1_open_interest_contracts: oi1,
      outcome_display_open_interest_contracts: Math.max(oi0, oi1),
      paired_set_supply_contracts: Math.min(oi0, oi1),
      side_supply_parity: oi0 === oi1,
      currency: 'USDH',
      as_of: iso(now),
      side0_as_of: iso(Number(side0.ts)),
      side1_as_of: iso(Number(side1.ts)),
    },
  };
}
