/**
 * The local cloud's near-live demo market. On first start it seeds the last days (3 by default)
 * hour by hour, then writes a batch every second, always through the real ingest path: a raw batch
 * dropped under landing/ in the archive bucket, S3's notification, the ingest queue and the ingest
 * function. Where it got to is kept in LOCAL_DATA_DIR/demo.json, and the simulation itself in
 * demo-market.bin (after each seeded batch, each minute live and at a stop), so a restart fills
 * the gap with the same market going on: books, positions and prices continue where they were.
 * The local cloud runs it in a process of its own (demo-feed-process.ts): the simulation is CPU
 * for minutes, and never on the gateway's event loop.
 *
 * With `nearHours`, a first start seeds the newest hours first: the market that goes on live starts
 * afresh at their beginning, so the near past and live data are in within seconds; the older days
 * follow from a second simulation that ends where the first begins (the one instant where the
 * demo's history is not one continuous simulation: prices, books and positions start afresh; its
 * order-level books are emptied there by diffs, so a book replayed across the seam is the new one).
 */
import { fork } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createUpstream, type Upstream } from './demo/upstream.ts';
import { createDemoMarket, resumeDemoMarket, type DemoMarket } from './demo/market.ts';
import { landingKey } from '../core/archive/layout.ts';
import { batchIdOf } from '../core/archive/ingest.ts';
import type { ArchiveManifest } from '../ports/archive.ts';
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { lowerPriority } from './sandbox.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** History is written in 3-hour batches: fewer, larger delta files than hourly ones for the same rows. */
const SEED_BATCH_MS = 3 * HOUR;

export interface DemoFeedOptions {
  s3: S3Client;
  bucket: string;
  manifest: ArchiveManifest;
  dataDir: string;
  days: number;
  seed: number;
  /** Trade and order arrival rate multiplier (the simulator's `intensity`). */
  intensity: number;
  /** Native L2 snapshot cadence per market. */
  l2IntervalMs: number;
  extraCoreMarkets?: number;
  /** Hours of order-level (L4) diffs and checkpoints seeded before now; default all the seeded history. */
  orderLevelHours?: number;
  /**
   * On a first start, seed the last this many hours first and go live after them, the older days
   * after (default 0: one continuous simulation from the start of the seed, as tests read it).
   */
  nearHours?: number;
  /** Go on writing a batch a second once seeded (default true; tests that read a settled archive turn it off). */
  live?: boolean;
  /** Called as seeding advances: at least once a simulated minute, and as batches are written and ingested. */
  onProgress?: (progress: SeedProgress) => void;
  /** Called when the listed symbols change (a new listing), live too. */
  onSymbols?: (symbols: ReturnType<DemoMarket['symbols']>) => void;
}

export interface SeedProgress {
  /** Which span the simulation is in: the newest hours (then live) or the older days behind them. */
  phase: 'near' | 'history';
  /** Batches written, of `total`, and ingested (the ingest function's manifest says done). */
  written: number;
  total: number;
  ingested: number;
  /** Records written so far. */
  records: number;
  /** Where the simulation's clock stands (epoch ms): it runs ahead of the batches written. */
  simulatedTo: number;
  /** Where the seeding ends (epoch ms). */
  seedingTo: number;
}

/** What a saved simulation must have been made with to be resumed. */
interface FeedShape {
  seed: number;
  intensity: number;
  l2IntervalMs: number;
  extraCoreMarkets: number;
}
/** `history`: the older days of a near-first seed, still to be written (a restart simulates them again; ingest skips batches it has). */
interface FeedState {
  seed: number;
  through: number;
  shape?: FeedShape;
  history?: Span;
}
interface Span {
  from: number;
  to: number;
}

/** Live, the simulation is saved at most this often (a restart silently replays the rest). */
const LIVE_SNAPSHOT_EVERY_MS = 60_000;

/** What a caller may see of the market: it runs where the feed runs. */
export type DemoMarketView = Pick<DemoMarket, 'wallets' | 'symbols'>;

export interface DemoFeed {
  market: DemoMarketView;
  /** Resolves once every seeded hour has been ingested, with the span this start seeded ([from, to) in ms). */
  seeded: Promise<{ from: number; to: number }>;
  stop(): Promise<void>;
}

async function putBatch(options: DemoFeedOptions, from: number, to: number, text: string): Promise<string> {
  const key = landingKey('normalized', from, `demo-${from}-${to}.jsonl.gz`);
  const body = gzipSync(text, { level: 1 });
  await options.s3.send(new PutObjectCommand({ Bucket: options.bucket, Key: key, Body: body, ContentType: 'application/x-ndjson', ContentEncoding: 'gzip' }));
  return batchIdOf(text);
}

const serialize = (records: readonly unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

/** Whether the saved feed was made with these options (its market, and the days it left, are this market's). */
const madeAs = (saved: FeedState | undefined, shape: FeedShape) => JSON.stringify(saved?.shape) === JSON.stringify(shape);

/**
 * The saved simulation when it was made with these options and stands within the seeding window,
 * advanced (its records dropped: they were written) to where the feed got.
 */
function resumedMarket(shape: FeedShape, saved: FeedState | undefined, snapshotPath: string, earliest: number): DemoMarket | undefined {
  if (!saved || !madeAs(saved, shape) || !existsSync(snapshotPath)) return undefined;
  try {
    const market = resumeDemoMarket(readFileSync(snapshotPath));
    if (market.nowMs() < earliest) return undefined;
    if (saved.through > market.nowMs()) market.advance(saved.through);
    return market;
  } catch (error) {
    console.error(`[demo] ${snapshotPath} could not be resumed; the market starts afresh from where the feed got:`, error);
    return undefined;
  }
}

export function startDemoFeed(options: DemoFeedOptions): DemoFeed {
  const statePath = join(options.dataDir, 'demo.json');
  const snapshotPath = join(options.dataDir, 'demo-market.bin');
  const now = Date.now();
  const saved: FeedState | undefined = existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : undefined;
  const shape: FeedShape = {
    seed: options.seed,
    intensity: options.intensity,
    l2IntervalMs: options.l2IntervalMs,
    extraCoreMarkets: options.extraCoreMarkets ?? 0,
  };
  // Resume where the last run stopped, but never reach back further than the seeding window.
  const earliest = Math.floor((now - options.days * 24 * HOUR) / HOUR) * HOUR;
  const resumed = resumedMarket(shape, saved, snapshotPath, earliest);
  // A first start with `nearHours` begins the market that many hours back (to the minute: from the
  // hour before, it simulated up to twice that before anything was readable); the older days are a span of their own.
  const nearFrom = !options.nearHours ? earliest : Math.max(earliest, Math.floor((now - options.nearHours * HOUR) / MINUTE) * MINUTE);
  const firstStart = !resumed && saved === undefined;
  // Older days a first start left unwritten are written by the next (of the same market only).
  let history: Span | undefined = firstStart
    ? nearFrom > earliest
      ? { from: earliest, to: nearFrom }
      : undefined
    : madeAs(saved, shape)
      ? saved?.history
      : undefined;
  const start = resumed?.nowMs() ?? (firstStart ? nearFrom : Math.max(saved?.through ?? earliest, earliest));
  const newMarket = (startMs: number) =>
    createDemoMarket({
      seed: options.seed,
      startMs,
      intensity: options.intensity,
      l2IntervalMs: options.l2IntervalMs,
      extraCoreMarkets: options.extraCoreMarkets,
    });
  const market = resumed ?? newMarket(start);
  /** Where this start's seed begins: the breadth history is computed from there once it is in. */
  const seedFrom = Math.min(start, history?.from ?? start);
  const upstream = createUpstream(options.seed);
  // Order-level records before the cutoff are not seeded (the book is simulated all the same).
  const orderLevelFrom = options.orderLevelHours === undefined ? -Infinity : now - options.orderLevelHours * HOUR;
  let through = start;
  let running = true;
  let snapshotAt = 0;
  /** The simulation first (it stands at `through`: its records are written), then where the feed got. */
  const save = (snapshot: boolean) => {
    if (snapshot) {
      writeFileSync(`${snapshotPath}.partial`, market.snapshot());
      renameSync(`${snapshotPath}.partial`, snapshotPath);
      snapshotAt = through;
    }
    writeFileSync(statePath, JSON.stringify({ seed: options.seed, through, shape, ...(history && { history }) } satisfies FeedState));
  };

  let listed = 0;
  /** Tells the caller of a new listing (the first call tells the symbols at the start). */
  const noticeListings = () => {
    const symbols = market.symbols();
    const count = Object.values(symbols).reduce((sum, list) => sum + list.length, 0);
    if (count !== listed) options.onSymbols?.(symbols);
    listed = count;
  };
  noticeListings();

  const target = Math.floor(Date.now() / 1000) * 1000;
  const progress = {
    written: 0,
    ingested: 0,
    records: 0,
    total: Math.ceil((target - start) / SEED_BATCH_MS) + (history ? Math.ceil((history.to - history.from) / SEED_BATCH_MS) : 0),
  };
  const confirmed = new Set<string>();
  const pending: string[] = [];
  /**
   * Simulates [from, to) of `simulation` a batch at a time and writes each batch; `afterBatch` hears
   * where it got. With `closeBooks`, the last batch also holds the diffs that empty its books at `to`.
   */
  const seedSpan = async (
    simulation: DemoMarket,
    simulationUpstream: Upstream,
    phase: SeedProgress['phase'],
    span: Span,
    afterBatch: (until: number) => void,
    closeBooks = false,
  ) => {
    const tell = (simulatedTo: number) => options.onProgress?.({ phase, ...progress, simulatedTo, seedingTo: span.to });
    for (let from = span.from; from < span.to && running; ) {
      const until = Math.min(from + SEED_BATCH_MS, span.to);
      // A minute at a time (the same records however `advance` is chunked), so a stop is heard
      // within one and the caller sees the simulation move.
      const simulated: NormalizedRecord[] = [];
      for (let clock = from; clock < until && running; ) {
        clock = Math.min(clock + MINUTE, until);
        const records = simulation.advance(clock, { orderLevel: clock > orderLevelFrom });
        for (const record of records)
          if (record.ts >= orderLevelFrom || (record.dataset !== 'l4_diffs' && record.dataset !== 'l4_checkpoints')) simulated.push(record);
        tell(clock);
        await new Promise((r) => setImmediate(r));
      }
      if (!running) return;
      const batch = simulationUpstream.apply(simulated, from, until);
      if (closeBooks && until === span.to) batch.push(...simulation.closingDiffs());
      progress.records += batch.length;
      pending.push(await putBatch(options, from, until, serialize(batch)));
      progress.written++;
      from = until;
      afterBatch(until);
      progress.ingested = await countIngested(options.manifest, pending, confirmed);
      tell(until);
    }
    while (running && progress.ingested < pending.length) {
      await new Promise((r) => setTimeout(r, 250));
      progress.ingested = await countIngested(options.manifest, pending, confirmed);
      tell(span.to);
    }
  };

  // The newest span first (all of it, on a start without `nearHours`), and live at once after it.
  const near = seedSpan(market, upstream, 'near', { from: start, to: target }, (until) => {
    through = until;
    noticeListings();
    save(true);
  });
  // Then the older days, from a simulation of their own, while live batches go on.
  const seeded = (async () => {
    await near;
    if (history && running) {
      const span = history;
      const older = newMarket(span.from);
      // Its last batch empties its books where the live market's begin (those start empty).
      await seedSpan(older, createUpstream(options.seed), 'history', span, () => undefined, span.to >= orderLevelFrom);
      if (running) {
        history = undefined;
        save(false);
      }
    }
    return { from: seedFrom, to: target };
  })();

  // After the newest span: one batch per second of market time, as it happens.
  const live = (async () => {
    await near;
    while (running && options.live !== false) {
      const until = Math.floor(Date.now() / 1000) * 1000;
      if (until > through) {
        const batch = upstream.apply(market.advance(until), through, until);
        if (batch.length > 0) await putBatch(options, through, until, serialize(batch));
        through = until;
        noticeListings();
        save(through - snapshotAt >= LIVE_SNAPSHOT_EVERY_MS);
      }
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
    }
  })();

  return {
    market,
    seeded,
    async stop() {
      running = false;
      await Promise.allSettled([seeded, live]);
      if (through > snapshotAt && market.nowMs() === through) save(true);
    },
  };
}

/** The options the local cloud hands the feed's process (its ports it makes there, from the environment). */
export type DemoProcessOptions = Omit<DemoFeedOptions, 's3' | 'bucket' | 'manifest' | 'onProgress' | 'onSymbols'>;

/** What the feed's process tells the local cloud. */
export type DemoFeedMessage =
  | { wallets: DemoMarketView['wallets'] }
  | { symbols: ReturnType<DemoMarket['symbols']> }
  | { progress: SeedProgress }
  | { seeded: { from: number; to: number } }
  | { failed: string };

/**
 * Starts the feed in a process of its own, `niceness` below this one's, resolving once it
 * has told the market's wallets and symbols. `onProgress` hears the seeding's progress.
 */
export async function startDemoFeedProcess(options: DemoProcessOptions & Pick<DemoFeedOptions, 'onProgress'> & { niceness: number }): Promise<DemoFeed> {
  const { onProgress, niceness, ...start } = options;
  const child = fork(fileURLToPath(new URL('./demo-feed-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    serialization: 'advanced',
    stdio: 'inherit',
  });
  lowerPriority(child, niceness);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let wallets: DemoMarketView['wallets'] | undefined;
  let symbols: ReturnType<DemoMarket['symbols']> | undefined;
  let told: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    told = resolve;
  });
  let settle: { resolve(span: { from: number; to: number }): void; reject(error: Error): void } | undefined;
  const seeded = new Promise<{ from: number; to: number }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // A stop before the seed ends leaves it unsettled, as the feed in this process did; never unhandled.
  seeded.catch(() => undefined);
  child.on('message', (message: DemoFeedMessage) => {
    if ('wallets' in message) wallets = message.wallets;
    else if ('symbols' in message) symbols = message.symbols;
    else if ('progress' in message) onProgress?.(message.progress);
    else if ('seeded' in message) settle?.resolve(message.seeded);
    else settle?.reject(new Error(`the demo feed failed: ${message.failed}`));
    if (wallets && symbols) told();
  });
  void exited.then(() => {
    told();
    settle?.reject(new Error('the demo feed process exited'));
  });
  child.send({ start });
  await started;
  if (!wallets || !symbols) throw new Error('the demo feed process exited before it started');
  const market: DemoMarketView = { wallets, symbols: () => structuredClone(symbols!) };
  return {
    market,
    seeded,
    async stop() {
      if (child.connected) child.send('stop');
      await exited;
    },
  };
}

async function countIngested(manifest: ArchiveManifest, batchIds: readonly string[], confirmed: Set<string>): Promise<number> {
  for (const id of batchIds) {
    if (!confirmed.has(id) && (await manifest.batchOutcome(id))?.status === 'done') confirmed.add(id);
  }
  return batchIds.filter((id) => confirmed.has(id)).length;
}
