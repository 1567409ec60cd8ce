/**
 * What an export will hold, from the manifest alone (no Parquet is opened): the symbol-days with
 * rows in the window (the partitions a job's state machine maps over), and a quote of their rows,
 * bytes and price. Windows are half-open, `[start, end)`.
 */
import { DATASETS } from '#schemas/datasets.ts';
import { EXPORT_FORMATS, MAX_EXPORT_PARTITIONS, MAX_EXPORT_WINDOW_MS, type CreateExportBody, type ExportQuote } from '#schemas/exports.ts';
import type { ArchiveManifest, ArchiveFile } from '#ports/archive.ts';
import type { ExportPartition } from '#ports/exports.ts';
import { AppError } from '../errors.ts';
import { isSymbolOf, type Family } from '../venues.ts';
import { coverageStart } from '../archive/coverage.ts';
import { visibleFiles } from '../archive/files.ts';
import { dayOf, daysBetween } from '../archive/layout.ts';

export interface ExportPlan {
  quote: ExportQuote;
  partitions: ExportPartition[];
}

const GB = 1e9;
const iso = (ms: number) => new Date(ms).toISOString();

/** The schema's price rule (SPEC "Limits"): USD per GB (10^9 bytes), never below the schema's minimum, in cents. */
export function priceUsd(schema: CreateExportBody['schema'], bytes: number): number {
  const rule = DATASETS[EXPORT_FORMATS[schema].dataset].export!;
  return Math.max(rule.minimumUsd, Math.ceil((bytes / GB) * rule.usdPerGb * 100) / 100);
}

/** The request's own rules, before the manifest is asked: each failure names its parameter. */
export function checkExportRequest(body: CreateExportBody, now: number): void {
  const { dataset } = EXPORT_FORMATS[body.schema];
  const families = Object.keys(DATASETS[dataset].coverage) as Family[];
  const coverage = coverageStart(dataset, body.family);
  if (coverage === undefined) {
    throw new AppError('invalid_parameter', `The ${body.schema} schema does not cover ${body.family}.`, { param: 'family', validValues: families });
  }
  if (body.end <= body.start) throw new AppError('invalid_time_range', 'end must be after start (the window is [start, end)).', { param: 'end' });
  if (body.end > now)
    throw new AppError('invalid_time_range', `end ${iso(body.end)} is in the future; export up to now (${iso(now)}) at most.`, { param: 'end' });
  if (body.end - body.start > MAX_EXPORT_WINDOW_MS) {
    throw new AppError('invalid_time_range', `A job covers at most ${MAX_EXPORT_WINDOW_MS / 86_400_000} days; split the window into several jobs.`, {
      param: 'end',
    });
  }
  if (body.start < coverage) {
    throw new AppError('invalid_time_range', `The archive holds ${body.schema} for ${body.family} from ${iso(coverage)}; start is before that.`, {
      param: 'start',
      details: { coverage_from: iso(coverage) },
    });
  }
  const misspelled = body.symbols?.find((s) => !isSymbolOf(body.family, s));
  if (misspelled !== undefined) {
    throw new AppError('invalid_symbol', `'${misspelled}' is not a ${body.family} symbol.`, { param: 'symbols' });
  }
}

/** The share of a file's rows inside [from, to), assuming rows spread evenly over its time span. */
function overlapShare(file: ArchiveFile, from: number, to: number): number {
  const lo = Math.max(from, file.minTs);
  const hi = Math.min(to - 1, file.maxTs);
  if (hi < lo) return 0;
  return file.maxTs === file.minTs ? 1 : (hi - lo + 1) / (file.maxTs - file.minTs + 1);
}

/** Partitions and quote of a valid request, from the files the manifest lists for its days. */
export async function planExport(manifest: ArchiveManifest, body: CreateExportBody, now: number): Promise<ExportPlan> {
  checkExportRequest(body, now);
  const format = EXPORT_FORMATS[body.schema];
  const { dataset } = format;
  const fromDay = dayOf(body.start);
  const toDay = dayOf(body.end - 1);
  const [compacted, deltas] = await Promise.all([
    Promise.all(daysBetween(fromDay, toDay).map((day) => manifest.compactedFilesOfDay(dataset, body.family, day))).then((days) => days.flat()),
    manifest.deltaFiles(dataset, body.family, fromDay, toDay),
  ]);
  const wanted = body.symbols && new Set(body.symbols);
  // Per symbol-day: the estimated rows and bytes (a delta of many symbols is shared evenly among them).
  const estimates = new Map<string, { symbol: string; day: string; rows: number; bytes: number }>();
  for (const file of visibleFiles(compacted, deltas)) {
    const share = overlapShare(file, body.start, body.end);
    if (share === 0) continue;
    const symbols = (file.symbol !== undefined ? [file.symbol] : file.symbols).filter((s) => !wanted || wanted.has(s));
    for (const symbol of symbols) {
      const key = `${file.day}\u0000${symbol}`;
      const entry = estimates.get(key) ?? { symbol, day: file.day, rows: 0, bytes: 0 };
      entry.rows += (file.rows * share) / (file.symbol !== undefined ? 1 : file.symbols.length);
      entry.bytes += (file.bytes * share) / (file.symbol !== undefined ? 1 : file.symbols.length);
      estimates.set(key, entry);
    }
  }
  const cells = [...estimates.values()].sort((a, b) => a.day.localeCompare(b.day) || a.symbol.localeCompare(b.symbol));
  if (cells.length === 0) {
    const what = body.symbols ? body.symbols.join(', ') : 'any symbol';
    throw new AppError('invalid_parameter', `The archive holds no ${body.schema} of ${body.family} ${what} in [${iso(body.start)}, ${iso(body.end)}).`, {
      param: body.symbols ? 'symbols' : 'start',
    });
  }
  if (cells.length > MAX_EXPORT_PARTITIONS) {
    throw new AppError(
      'invalid_parameter',
      `The export spans ${cells.length} symbol-days; a job holds at most ${MAX_EXPORT_PARTITIONS}. Name fewer symbols or a shorter window.`,
      {
        param: body.symbols ? 'symbols' : 'end',
      },
    );
  }
  const rows = Math.round(cells.reduce((sum, c) => sum + c.rows, 0));
  const bytes = Math.round(cells.reduce((sum, c) => sum + c.bytes, 0));
  const rule = DATASETS[dataset].export!;
  return {
    partitions: cells.map((c, i) => ({ i, s: c.symbol, d: c.day })),
    quote: {
      schema: body.schema,
      schema_version: format.version,
      family: body.family,
      symbols: [...new Set(cells.map((c) => c.symbol))].sort(),
      start: iso(body.start),
      end: iso(body.end),
      partitions: cells.length,
      estimated_rows: rows,
      estimated_bytes: bytes,
      price_usd: priceUsd(body.schema, bytes),
      currency: 'USD',
      pricing: { usd_per_gb: rule.usdPerGb, minimum_usd: rule.minimumUsd },
    },
  };
}
