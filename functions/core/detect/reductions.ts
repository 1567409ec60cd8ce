/**
 * A minute type's detector input kept reduced (core/archive/sql.ts REDUCTIONS): its rows over an
 * estimate's lookback read in one pass from the reduction, the hours it does not cover reduced on
 * the fly from the raw source, and detected in JS or, where the type has it, in SQL.
 */
import type { ArchiveDeps } from '#ports/archive.ts';
import type { Family } from '../venues.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import type { ReducedSource, Relation } from '../events/kit/preview-sources.ts';
import { DAY_MS } from '../archive/layout.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { REDUCTIONS, type ReductionDataset } from '../archive/sql.ts';
import { windowSource } from '../archive/read.ts';
import type { IngestedDataset } from '#schemas/datasets.ts';

import { HOUR_MS, derivedCoverage, hoursHeld, uncoveredSpans } from './rollups.ts';

/** A ReducedSource's input over [since, to), read once, and its detector over any window of it. */
export interface DetectorInput {
  /** Occurrences of [from, to) (from >= since) for each param set. */
  detect: (from: number, to: number, paramSets: readonly Record<string, unknown>[]) => Promise<Candidate[]>;
  /** Family-hours answered by a reduction (the rest reduced on the fly from the raw source); 0 for a source read whole. */
  coveredHours: number;
  /** Rows decoded: the detector's input, or the occurrences its SQL found. */
  rowsRead: () => number;
  /** With the detector in SQL: the occurrences of [from, to) for one param set, counted there (see OccurrenceSummary). */
  summarize?: (
    from: number,
    to: number,
    params: Record<string, unknown>,
    values: { metric: string; absolute: boolean },
    newest: number,
  ) => Promise<OccurrenceSummary>;
}

/** A param set's occurrences, counted without decoding each: what an estimate of a rule with no condition needs. */
export interface OccurrenceSummary {
  /** Occurrences per UTC day start. */
  perDay: Map<number, number>;
  /** The metric's values (absolute, when asked), ascending. */
  values: number[];
  /** The newest occurrences, newest first. */
  newest: Candidate[];
}

/**
 * A ReducedSource's input of [since, to) for the rule's families and symbols: a reduction's
 * relation (see reducedRelation) detected in SQL when the type has it, else its rows read (a
 * source dataset whole, one query a family) and detected in JS.
 */
export async function detectorInput(
  deps: ArchiveDeps,
  input: ReducedSource,
  families: readonly Family[],
  symbols: readonly string[] | undefined,
  since: number,
  to: number,
): Promise<DetectorInput> {
  const scoped = input.bySymbol ? symbols : undefined;
  const { occurrences } = input;
  if ('reduction' in input.rows && occurrences) {
    const { relation, coveredHours } = await reducedRelation(deps, input.rows.reduction, families, scoped, since, to);
    let decoded = 0;
    const bound = (from: number, end: number, params: Record<string, unknown>) => {
      const query = occurrences.sql(`(${relation!.sql})`, params);
      return { sql: query.sql, params: { ...relation!.params, ...query.params, o_from: from, o_to: end } };
    };
    const decode = (columns: Record<string, unknown[]>, params: Record<string, unknown>) => {
      const count = Object.values(columns)[0]?.length ?? 0;
      decoded += count;
      const found: Candidate[] = [];
      for (let i = 0; i < count; i += 1) found.push(occurrences.candidate(columns, i, params));
      return found;
    };
    return {
      coveredHours,
      rowsRead: () => decoded,
      async summarize(from, end, params, { metric, absolute }, newest) {
        if (!relation) return { perDay: new Map(), values: [], newest: [] };
        const query = bound(from, end, params);
        // One pass: per-day counts, the sorted values and the newest rows (as columns) in one row.
        const [summary] = await deps.sql.query({
          sql: `WITH occurrences AS MATERIALIZED (${query.sql})
                SELECT (SELECT list(struct_pack(day := day, n := n)) FROM (SELECT ts // ${DAY_MS} AS day, count(*) AS n FROM occurrences GROUP BY 1)) AS days,
                  (SELECT list_sort(list(${absolute ? 'abs' : ''}(CAST("${metric.replaceAll('"', '')}" AS DOUBLE)))) FROM occurrences) AS "values",
                  (SELECT to_json(list(o ORDER BY ts DESC)[1:$o_newest]) FROM occurrences o) AS newest`,
          params: { ...query.params, o_newest: newest },
        });
        const days = (summary?.days ?? []) as { day: number | bigint; n: number | bigint }[];
        const rows = JSON.parse(String(summary?.newest ?? '[]')) as Record<string, unknown>[] | null;
        const columns: Record<string, unknown[]> = {};
        for (const row of rows ?? []) for (const [name, value] of Object.entries(row)) (columns[name] ??= []).push(value);
        return {
          perDay: new Map(days.map((d) => [Number(d.day) * DAY_MS, Number(d.n)])),
          values: ((summary?.values ?? []) as number[]).map(Number),
          newest: decode(columns, params),
        };
      },
      async detect(from, end, paramSets) {
        if (!relation) return [];
        const found = await Promise.all(paramSets.map(async (params) => decode(await deps.sql.queryColumns(bound(from, end, params)), params)));
        return found.flat();
      },
    };
  }
  const read = await readDetectorInput(deps, input, families, scoped, since, to);
  return {
    coveredHours: read.coveredHours,
    rowsRead: () => read.rowsRead,
    detect: (from, end, paramSets) => input.detect(read.rows, from, end, deps, paramSets),
  };
}

/** A ReducedSource's rows of [since, to) (symbols already scoped): see readReduced; a source dataset is read whole, one query a family. */
export async function readDetectorInput(
  deps: ArchiveDeps,
  input: ReducedSource,
  families: readonly Family[],
  symbols: readonly string[] | undefined,
  since: number,
  to: number,
): Promise<ReducedRead> {
  if ('reduction' in input.rows) return readReduced(deps, input.rows.reduction, families, symbols, since, to);
  const dataset = input.rows.source;
  const rows: Record<string, unknown>[] = [];
  for (const family of families) {
    const window = await windowSource(deps, { dataset, family, from: since, to: to - 1, symbols });
    if (!window) continue;
    for (const row of await deps.sql.query({ sql: `SELECT * FROM (${window.sql}) ORDER BY ts`, params: window.params })) rows.push({ ...row, family });
  }
  return { rows, coveredHours: 0, rowsRead: rows.length };
}

/** The rows a reduction keeps over [since, to), as the detector reads them (with `family`), oldest first. */
export interface ReducedRead {
  rows: Record<string, unknown>[];
  /** Family-hours read from the reduction; the rest were reduced on the fly from the raw source. */
  coveredHours: number;
  rowsRead: number;
}

/** The part's parameters renamed `$<name>` -> `$<name>_<n>`, so parts can be joined into one query. */
function numbered(part: Relation, n: number): Relation {
  const names = Object.keys(part.params).sort((a, b) => b.length - a.length);
  let sql = part.sql;
  for (const name of names) sql = sql.replaceAll(new RegExp(`\\$${name}\\b`, 'g'), `$${name}_${n}`);
  return { sql, params: Object.fromEntries(Object.entries(part.params).map(([name, value]) => [`${name}_${n}`, value])) };
}

/**
 * A reduction's rows of [since, to) for the given families (and symbols) as one relation (each row
 * with `family`): covered hours (a reduction file of the hour, no source delta touching it) from
 * the reduction, the others reduced from the raw source with the same SQL, one part per run of
 * uncovered hours (usually the open hour or two; a whole range of days compacted before the
 * reduction existed). Undefined when no file holds any row.
 */
export async function reducedRelation(
  deps: ArchiveDeps,
  reduction: ReductionDataset,
  families: readonly Family[],
  symbols: readonly string[] | undefined,
  since: number,
  to: number,
): Promise<{ relation: Relation | undefined; coveredHours: number }> {
  const source = REDUCTIONS[reduction].source as IngestedDataset;
  const parts: Relation[] = [];
  let coveredHours = 0;
  await Promise.all(
    families
      .filter((f) => !whollyBeforeCoverage(source, f, to - 1))
      .map(async (family) => {
        const { visible, holds } = whollyBeforeCoverage(reduction, family, to - 1)
          ? { visible: [], holds: () => false }
          : await derivedCoverage(deps, reduction, source, family, since, to);
        // Hours partly inside [since, to) count too: the reduction's rows are read from `since` on.
        const covered = [...hoursHeld(Math.floor(since / HOUR_MS) * HOUR_MS, Math.ceil(to / HOUR_MS) * HOUR_MS, holds)];
        coveredHours += covered.length;
        const familyParts: Promise<Relation | undefined>[] = [];
        if (covered.length > 0 && visible.length > 0) {
          familyParts.push(
            deps.files.paths(visible).then((paths) => ({
              sql: `SELECT * EXCLUDE (marker, family), $r_family AS family FROM read_parquet($r_files, union_by_name = true)
              WHERE marker IS NULL AND ts BETWEEN $r_from AND $r_to AND (ts // 3600000) * 3600000 IN (SELECT CAST(unnest($r_hours) AS BIGINT))
                ${symbols ? 'AND list_contains($r_symbols, symbol)' : ''}`,
              params: { r_family: family, r_files: paths, r_from: since, r_to: to - 1, r_hours: covered.map(String), ...(symbols && { r_symbols: symbols }) },
            })),
          );
        }
        // The hours not covered, joined where they touch, reduced from the raw rows.
        const coveredSet = new Set(covered);
        for (const [start, end] of uncoveredSpans(since, to, (hour) => coveredSet.has(hour))) {
          familyParts.push(
            windowSource(deps, { dataset: source, family, from: start, to: end - 1, symbols }).then(
              (window) =>
                window && {
                  sql: `SELECT * EXCLUDE (family), $r_family AS family FROM (${REDUCTIONS[reduction].rows(`(${window.sql})`)})`,
                  params: { ...window.params, r_family: family },
                },
            ),
          );
        }
        for (const part of await Promise.all(familyParts)) if (part) parts.push(part);
      }),
  );
  if (parts.length === 0) return { relation: undefined, coveredHours };
  const joined = parts.map(numbered);
  return {
    relation: { sql: joined.map((p) => `(${p.sql})`).join(' UNION ALL BY NAME '), params: Object.assign({}, ...joined.map((p) => p.params)) },
    coveredHours,
  };
}

/** A reduction's rows of [since, to) (see reducedRelation), oldest first, as the detector reads them. */
export async function readReduced(
  deps: ArchiveDeps,
  reduction: ReductionDataset,
  families: readonly Family[],
  symbols: readonly string[] | undefined,
  since: number,
  to: number,
): Promise<ReducedRead> {
  const { relation, coveredHours } = await reducedRelation(deps, reduction, families, symbols, since, to);
  const rows = relation ? await deps.sql.query({ sql: `SELECT * FROM (${relation.sql}) ORDER BY ts`, params: relation.params }) : [];
  return { rows, coveredHours, rowsRead: rows.length };
}
