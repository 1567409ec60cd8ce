/**
 * The scan previews and replays share: a window of the archive replayed, newest page first, through
 * the live detectors, reference values and matcher, within a row cap and a time budget (a scan cut
 * short starts later and says `truncated`).
 */
import { AppError } from '../errors.ts';
import type { ArchiveDeps } from '#ports/archive.ts';
import type { SqlValue } from '#ports/sql.ts';
import { whollyBeforeCoverage } from '../archive/coverage.ts';
import { windowFiles, windowSource } from '../archive/read.ts';
import type { Clock } from '#ports/clock.ts';
import type { WebhookStores } from '#ports/webhooks.ts';
import type { BreadthStore } from '#ports/breadth.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import type { Detection, EventTypeDecl } from '../events/declare.ts';
import { uncoveredSpans } from './rollups.ts';
import type { StoredConfig } from '../webhooks/filters.ts';
import { matches } from './match.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import type { ReferenceSource } from '../events/kit/relative-metrics.ts';
import { withReferences } from './dispatch.ts';
import { minuteContext, queryRecords } from '../events/kit/reads.ts';

/** Most rows one preview scans; past it the window's start moves later and the answer says truncated. */
export const SCAN_ROW_CAP = 250_000;

/**
 * No page of a scan starts past this point of the call: what was read by then is answered, with
 * `truncated` and a later `window.from`. API Gateway gives up at 29 s; one page is an hour of one
 * dataset's files, so the call ends well inside it.
 */
export const SCAN_BUDGET_MS = 10_000;

/**
 * A scan pages through its window newest first: an hour a page on the window's last day (hour
 * files) and on a day part of which another source answered, a whole day otherwise (its day files
 * are opened once, not once an hour). Instants never straddle two pages.
 */
export const SCAN_PAGE_MS = 3_600_000;

/** Minute detectors are replayed a day of the window at a time (each reads its own lookback before it). */
export const MINUTE_PAGE_MS = 86_400_000;

export const DAY_MS = 86_400_000;

export interface PreviewDeps {
  store: Pick<WebhookStores, 'rules' | 'allowances'>;
  clock: Clock;
  archive: ArchiveDeps;
  breadth: BreadthStore;
  references: ReferenceSource;
}

/** What a scan read: the candidates of [from, to), `from` moved later when the scan was cut (`truncated`). */
export interface Scan {
  candidates: Candidate[];
  from: number;
  truncated: boolean;
  rowsScanned: number;
}

/** The scan's pages of [from, to), newest first (see SCAN_PAGE_MS). */
function scanPages(from: number, to: number, answered?: ReadonlyMap<string, ReadonlySet<number>>): [number, number][] {
  const lastDay = Math.floor((to - 1) / DAY_MS) * DAY_MS;
  const pages: [number, number][] = [];
  for (let day = lastDay; day + DAY_MS > from; day -= DAY_MS) {
    const [start, end] = [Math.max(from, day), Math.min(to, day + DAY_MS)];
    const partlyAnswered = [...(answered?.values() ?? [])].some((hours) => [...hours].some((h) => h >= day && h < day + DAY_MS));
    if (day === lastDay || partlyAnswered) pages.push(...pagesOf(start, end, SCAN_PAGE_MS));
    else pages.push([start, end]);
  }
  return pages;
}

/** The pages of [from, to), newest first: [pageFrom, pageTo) each. */
export function pagesOf(from: number, to: number, pageMs: number): [number, number][] {
  const pages: [number, number][] = [];
  for (let end = to; end > from; end = Math.max(from, Math.ceil(end / pageMs - 1) * pageMs)) {
    pages.push([Math.max(from, Math.ceil(end / pageMs - 1) * pageMs), end]);
  }
  return pages;
}

/**
 * Which of a page's candidates a preview keeps: those `pool` lets through (scope, floor and the
 * conditions it has), with the relative metrics computed for them only when a condition of the
 * rule reads one. Those take an archive read per occurrence's minute, so they are worked out for
 * what survives the other conditions, never for every occurrence of the window.
 */
export function keeper(deps: Pick<PreviewDeps, 'references'>, decl: EventTypeDecl, rule: StoredConfig, pool: StoredConfig, watched: ReadonlySet<string>) {
  const relative = (c: { metric: string }) => c.metric.startsWith('notional_pct_');
  const needsReferences = rule.conditions.some(relative);
  const absolute = { ...pool, conditions: pool.conditions.filter((c) => !relative(c)) };
  return async (candidates: readonly Candidate[]): Promise<Candidate[]> => {
    const survivors = candidates.filter((c) => matches(decl, absolute, c, watched));
    if (!needsReferences) return survivors;
    return (await withReferences(survivors, deps.references, { batched: true })).filter((c) => matches(decl, pool, c, watched));
  };
}

/** The delivered form of the occurrences shown: relative metrics added where the keeper did not. */
export async function shown(deps: Pick<PreviewDeps, 'references'>, rule: StoredConfig, candidates: Candidate[]): Promise<Candidate[]> {
  return rule.conditions.some((c) => c.metric.startsWith('notional_pct_')) ? candidates : withReferences(candidates, deps.references, { batched: true });
}

interface ScanOptions {
  /** Most rows read before the window is cut (default SCAN_ROW_CAP). */
  rowCap?: number;
  /** Keeps a page's candidates worth keeping (see keeper); all of them by default. */
  keep?: (candidates: readonly Candidate[]) => Promise<Candidate[]>;
  /** Pages (hours) of a family another source has already answered for (the estimate's rollups): not read. */
  answered?: ReadonlyMap<string, ReadonlySet<number>>;
}

const keepAll = async (candidates: readonly Candidate[]) => [...candidates];

/**
 * Replays [from, to) through a batch detector, reading only the files of the rule's venues and
 * symbols, a page (an hour) at a time, newest first, each page's occurrences detected as it is
 * read (an instant is never split between pages, so this is what one pass would find). When the
 * row cap or the time budget runs out, the window's start moves to the start of the last page read
 * whole (or, inside a page, to just after the last instant read whole) and the scan says
 * truncated. Out of time before any page: 504.
 */
export async function scan(
  deps: Pick<PreviewDeps, 'archive' | 'clock' | 'references'>,
  decl: EventTypeDecl,
  detection: Extract<Detection, { kind: 'batch' }>,
  config: StoredConfig,
  watched: ReadonlySet<string>,
  from: number,
  to: number,
  deadline: number,
  options: ScanOptions = {},
): Promise<Scan> {
  const keep = options.keep ?? keepAll;
  const rowCap = options.rowCap ?? SCAN_ROW_CAP;
  const families = (config.venue ?? decl.venues).filter((v) => !whollyBeforeCoverage(detection.reads, v, to - 1));
  const addresses = [...(config.addresses ?? watched)];
  if (deps.clock.now() > deadline) throw scanTimeout();
  const listed = await Promise.all(
    families.map(async (family) => ({
      family,
      // Only the hours no rollup answers are listed (the open hour's files without the day's per-symbol ones: see unsettledFrom).
      files: (
        await Promise.all(
          uncoveredSpans(from, to, (hour) => options.answered?.get(family)?.has(hour) ?? false).map(([spanFrom, spanTo]) =>
            windowFiles(deps.archive, { dataset: detection.reads, family, from: spanFrom, to: spanTo - 1, symbols: config.symbols }),
          ),
        )
      ).flat(),
    })),
  );
  const candidates: Candidate[] = [];
  let rowsScanned = 0;
  let start = to;
  let truncated = false;
  for (const [pageFrom, pageTo] of scanPages(from, to, options.answered)) {
    if (deps.clock.now() > deadline) {
      if (start === to) throw scanTimeout();
      truncated = true;
      break;
    }
    let page: NormalizedRecord[] = [];
    for (const { family, files } of listed) {
      if (options.answered?.get(family)?.has(pageFrom) && pageTo - pageFrom === SCAN_PAGE_MS) continue;
      const window = await windowSource(deps.archive, { dataset: detection.reads, family, from: pageFrom, to: pageTo - 1, symbols: config.symbols }, files);
      if (!window) continue;
      const where: string[] = [];
      const params: Record<string, SqlValue> = { ...window.params, p_limit: Math.min(rowCap - rowsScanned + 1, Number.MAX_SAFE_INTEGER) };
      if (detection.addressColumn) {
        where.push(`list_contains($p_addresses, "${detection.addressColumn}")`);
        params.p_addresses = addresses;
      }
      // With `columns`, the records hold those members only: the detector declared them as all it reads.
      const columns = detection.columns ? detection.columns.map((c) => `"${c}"`).join(', ') : '*';
      const found = await queryRecords(deps.archive.sql, detection.reads, family, {
        sql: `SELECT ${columns} FROM (${window.sql}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ts DESC LIMIT $p_limit`,
        params,
      });
      for (const record of found) page.push(record);
    }
    page.sort((a, b) => b.ts - a.ts);
    let cut: number | undefined;
    if (rowsScanned + page.length > rowCap) {
      // Keep whole instants only: the cut instant may be split between what was read and what was not.
      cut = page[rowCap - rowsScanned]!.ts;
      page = page.filter((r) => r.ts > cut!);
    }
    rowsScanned += page.length;
    candidates.push(...(await keep(detection.detect(page, new Set(addresses)))));
    if (cut !== undefined) {
      start = cut + 1;
      truncated = true;
      break;
    }
    start = pageFrom;
  }
  return { candidates, from: start, truncated, rowsScanned };
}

/** The params a minute detection reads, from a rule's configuration. */
export const paramsOf = (detection: Detection, config: StoredConfig): Record<string, unknown> =>
  detection.kind === 'minute' ? Object.fromEntries(detection.params.map((k) => [k, config.params[k]])) : {};

/**
 * Minute-class types replay their detector over the window with the configuration's own params, a
 * day at a time newest first, under the same budget as `scan`.
 */
export async function minuteScan(
  deps: Omit<PreviewDeps, 'store'>,
  detection: Extract<Detection, { kind: 'minute' }>,
  config: StoredConfig,
  from: number,
  to: number,
  deadline: number,
  keep = keepAll,
): Promise<Scan> {
  const params = Object.fromEntries(detection.params.map((k) => [k, config.params[k]]));
  const candidates: Candidate[] = [];
  let start = to;
  let truncated = false;
  for (const [pageFrom, pageTo] of pagesOf(from, to, MINUTE_PAGE_MS)) {
    if (deps.clock.now() > deadline) {
      if (start === to) throw scanTimeout();
      truncated = true;
      break;
    }
    candidates.push(...(await keep(await detection.detect(minuteContext(deps, pageFrom, pageTo), [params]))));
    start = pageFrom;
  }
  return { candidates, from: start, truncated, rowsScanned: 0 };
}

/**
 * Every occurrence of [from, to) a detection finds, kept by `keep`, with no time budget or row cap
 * (a replay job's day: the task has minutes, and pages keep memory to an hour of rows).
 */
export async function replayWindow(
  deps: Omit<PreviewDeps, 'store'>,
  decl: EventTypeDecl,
  detection: Detection,
  config: StoredConfig,
  watched: ReadonlySet<string>,
  from: number,
  to: number,
  keep: (candidates: readonly Candidate[]) => Promise<Candidate[]>,
): Promise<Scan> {
  if (detection.kind === 'announced') throw new Error(`${decl.type} is not detected from the archive`);
  if (detection.kind === 'minute') return minuteScan(deps, detection, config, from, to, Infinity, keep);
  return scan(deps, decl, detection, config, watched, from, to, Infinity, { keep, rowCap: Infinity });
}

const scanTimeout = () => new AppError('scan_timeout', 'The scan ran out of time; retry with a shorter lookback_s (dry-run) or lookback_days (estimate).');

/**
 * A read that gives up on its own (an SDK request or a file download timing out while the machine
 * is busy) is the scan running out of time, a 504 with the spec's body, not a server error.
 */
export async function withinScanTime<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      error instanceof Error
      && !(error instanceof AppError)
      && (error.name === 'TimeoutError' || error.name === 'AbortError' || /timed? ?out/i.test(error.message))
    ) {
      throw new AppError('scan_timeout', scanTimeout().message, { cause: error });
    }
    throw error;
  }
}
