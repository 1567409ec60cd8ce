/**
 * Which batch format a file holds, from its path (the venue archive's directory names, e.g.
 * `node_fills_by_block/hourly/20250101/0`, `asset_ctxs/20250101.csv.lz4`,
 * `market_data/20250101/0/l2Book/BTC.lz4`, or a `landing/<format>/` key) and else from its
 * content's shape. Used by `npm run ingest`, which uploads files under `landing/<format>/`.
 */
import { BATCH_FORMATS, type BatchFormat } from '#schemas/messages.ts';
import { snapshotHeight } from './node-snapshot.ts';
import { altxFormatOf } from './altx-api.ts';
import { altxFamilyOfPath, isAltxRecording } from './altx-lines.ts';

/** Archive directory names of the formats we read; longest first so `node_fills_by_block` is not read as `node_fills`. */
const PATH_NAMES = BATCH_FORMATS.filter((f) => f !== 'normalized').sort((a, b) => b.length - a.length);
/** The venue's own names of some formats: its archive's `l2Book` directory, its info endpoint's `spotMeta`. */
const PATH_ALIASES: Readonly<Record<string, BatchFormat>> = { l2Book: 'l2_book', spotMeta: 'spot_meta', spotMetaAndAssetCtxs: 'spot_meta' };

/** The format a path names, when one of its segments (extension aside) is a format's name. */
export function formatOfPath(path: string): BatchFormat | undefined {
  const segments = path.split(/[\\/]/);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    // landing/<format>/… as the ingest queue reads it.
    if (segment === 'landing' && (BATCH_FORMATS as readonly string[]).includes(segments[i + 1] ?? '')) return segments[i + 1] as BatchFormat;
  }
  const names = (name: string) => segments.some((segment) => segment === name || segment.startsWith(`${name}.`));
  return PATH_NAMES.find(names) ?? Object.entries(PATH_ALIASES).find(([alias]) => names(alias))?.[1];
}

const isAddress = (value: unknown) => typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value);

/**
 * The format of a text from its lines' shape. The node's by-block and streamed files share their
 * envelope; a block number on more than one line can only be streaming. A streamed file whose
 * blocks each sit on one line reads the same either way (each line is then a whole block), but for
 * its first and last block, which only the streamed form knows may be cut: the node's directory
 * names (`node_raw_book_diffs_streaming/hourly/…`) tell it, and win over the content.
 */
export function formatOfContent(text: string): BatchFormat | { error: string } {
  // Files read whole are told by how they begin (a snapshot is one line of tens of MB: not parsed here).
  if (snapshotHeight(text) !== undefined) return 'node_l4_snapshot';
  if (/^\s*\[?\s*\{\s*"(universe|tokens)"\s*:/.test(text.slice(0, 256))) return 'spot_meta';
  const firstEnd = text.indexOf('\n');
  const first = (firstEnd < 0 ? text : text.slice(0, firstEnd)).trim();
  if (!/^[[{]/.test(first)) return csvFormat(first);
  let json: unknown;
  try {
    json = JSON.parse(first);
  } catch {
    return { error: 'line 1: not JSON' };
  }
  if (Array.isArray(json) && json.length === 2 && isAddress(json[0]) && typeof json[1] === 'object') return 'node_fills';
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: UNKNOWN };
  const record = json as Record<string, unknown>;
  if (typeof record.dataset === 'string') return 'normalized';
  if (Array.isArray(record.side_info)) return 'node_trades';
  if (isL2Book(record)) return 'l2_book';
  if (typeof record.block_number !== 'number' || !Array.isArray(record.events)) return { error: UNKNOWN };
  const event = record.events.find(() => true) as unknown;
  if (event === undefined) return { error: 'line 1: a block without events tells no format (pass --format)' };
  const streamed = repeatsBlock(text);
  if (Array.isArray(event)) return streamed ? 'node_fills_streaming' : 'node_fills_by_block';
  if (typeof event === 'object' && event !== null && 'raw_book_diff' in event)
    return streamed ? 'node_raw_book_diffs_streaming' : 'node_raw_book_diffs_by_block';
  if (typeof event === 'object' && event !== null && 'status' in event && 'order' in event)
    return streamed ? 'node_order_statuses_streaming' : 'node_order_statuses_by_block';
  return { error: 'line 1: a block of unknown events' };
}

const UNKNOWN =
  "line 1: no format of the venue's files (a node block, fill or trade, an l2Book message, an asset_ctxs CSV, an L4 snapshot, spot metadata or a normalized record)";

/** An l2Book message: the archive's line (`{time, ver_num, raw}`), the websocket message, or its data. */
function isL2Book(line: Record<string, unknown>): boolean {
  const message = (typeof line.raw === 'object' && line.raw !== null ? line.raw : line) as Record<string, unknown>;
  if (message.channel === 'l2Book') return true;
  return typeof message.coin === 'string' && Array.isArray(message.levels);
}

/** A CSV by its header: the archive's asset contexts have time, coin and funding or open interest. */
function csvFormat(header: string): BatchFormat | { error: string } {
  const names = header
    .replace(/^\uFEFF/, '')
    .split(',')
    .map((name) => name.toLowerCase().replace(/[^a-z0-9]/g, ''));
  if (names.includes('time') && names.includes('coin') && (names.includes('funding') || names.includes('openinterest'))) return 'asset_ctxs';
  return { error: names.length > 1 ? `line 1: a CSV header the venue's asset_ctxs do not have (${header.slice(0, 80)})` : 'line 1: not JSON' };
}

/** Whether a block number appears on more than one line (matched in the text: parsing a large file twice is not worth it). */
function repeatsBlock(text: string): boolean {
  const seen = new Set<string>();
  for (const match of text.matchAll(/"block_number"\s*:\s*(\d+)/g)) {
    if (seen.has(match[1]!)) return true;
    seen.add(match[1]!);
  }
  return false;
}

/**
 * An altx recording's format: its content shows the venue, `family` (`--family`) or a directory of
 * its path (`altx`, `altx-rh`) which of its two deployments; undefined when the content is not one.
 */
function altxFormat(path: string, text: string, family: 'altx' | 'altx-rh' | undefined): BatchFormat | { error: string } | undefined {
  if (!isAltxRecording(text)) return undefined;
  const named = family ?? altxFamilyOfPath(path);
  if (named === undefined) return { error: 'an altx venue recording, of altx or altx-rh: pass --family (or keep it under a directory named altx or altx-rh)' };
  return typeof named === 'object' ? named : altxFormatOf(named);
}

/** The format of a file: the one its path names, else the one its content shows. */
export function sniffFormat(path: string, text: string, family?: 'altx' | 'altx-rh'): BatchFormat | { error: string } {
  return formatOfPath(path) ?? altxFormat(path, text, family) ?? formatOfContent(text);
}
