/**
 * The generator's blocks gathered into ingest batches of whole blocks (a streamed batch must hold
 * whole blocks, node-streamed.ts), cut once the order statuses reach `statusLines` (about 50 MB of
 * them at the default): one batch per streamed format over the same blocks, and an L4 snapshot
 * whenever a checkpoint interval has passed, as a node operator's poller of the info server takes it.
 */
import type { VenueRateGenerator } from './generator.ts';

export type VenueFormat = 'node_order_statuses_streaming' | 'node_raw_book_diffs_streaming' | 'node_fills_streaming';

export interface VenueBatch {
  /** The blocks' span. */
  firstBlock: number;
  lastBlock: number;
  fromMs: number;
  toMs: number;
  /** Each format's text (whole blocks, one event a line) and its line count. */
  texts: Record<VenueFormat, { text: string; lines: number }>;
  /** The snapshot taken after the batch's last block, when a checkpoint was due. */
  snapshot?: { height: number; at: number; text: string };
}

/** The checkpoint cadence of the design (every 5 minutes, as the demo's). */
export const CHECKPOINT_EVERY_MS = 5 * 60_000;

/**
 * Batches until the generator's clock reaches `endMs`, a snapshot after the batch that crosses each
 * multiple of `checkpointMs`. The starting book's snapshot (the checkpoint the first diffs build
 * on) is the caller's: `generator.snapshot()` before the first batch.
 */
export function* venueBatches(
  generator: VenueRateGenerator,
  endMs: number,
  options: { statusLines?: number; checkpointMs?: number } = {},
): Generator<VenueBatch> {
  const { statusLines = 100_000, checkpointMs = CHECKPOINT_EVERY_MS } = options;
  let nextCheckpoint: number | undefined;
  for (let done = false; !done; ) {
    const lines: Record<VenueFormat, string[]> = { node_order_statuses_streaming: [], node_raw_book_diffs_streaming: [], node_fills_streaming: [] };
    let first: { number: number; ms: number } | undefined;
    let last = first;
    while (lines.node_order_statuses_streaming.length < statusLines) {
      const block = generator.next();
      first ??= block;
      nextCheckpoint ??= Math.floor(block.ms / checkpointMs) * checkpointMs + checkpointMs;
      last = block;
      lines.node_order_statuses_streaming.push(...block.statuses);
      lines.node_raw_book_diffs_streaming.push(...block.diffs);
      lines.node_fills_streaming.push(...block.fills);
      if (block.ms >= endMs) {
        done = true;
        break;
      }
      if (block.ms >= nextCheckpoint) break;
    }
    const texts = Object.fromEntries(
      Object.entries(lines).map(([format, l]) => [format, { text: l.length > 0 ? `${l.join('\n')}\n` : '', lines: l.length }]),
    ) as VenueBatch['texts'];
    let snapshot: VenueBatch['snapshot'];
    if (last!.ms >= nextCheckpoint!) {
      snapshot = generator.snapshot();
      while (last!.ms >= nextCheckpoint!) nextCheckpoint = nextCheckpoint! + checkpointMs;
    }
    yield { firstBlock: first!.number, lastBlock: last!.number, fromMs: first!.ms, toMs: last!.ms, texts, ...(snapshot && { snapshot }) };
  }
}
