/**
 * Data quality over HTTP against the local cloud's demo market, whose upstream leaves known holes
 * every hour (an altx trade stop, a hip3 book stall): the minute detection job runs over the seeded
 * history, and the holes must appear as gaps of the symbol coverage and as incidents carrying the
 * detectors' own incident ids, resolved; coverage figures must equal the archive's rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, runDetectionOver, startDemoCloud } from '../helpers/local-cloud.ts';
import { keyedGet } from '../helpers/api.ts';
import { DEMO_HOLES } from '#local/demo/upstream.ts';
import { MINUTE_DETECTORS } from '#core/events/registry.ts';
import { minuteContext } from '#core/events/kit/reads.ts';
import { DEFAULT_STALL_THRESHOLD_S } from '#core/events/ingest.stall.ts';
import { windowSource } from '#core/archive/read.ts';
import { archiveDeps } from '#shared/archive-deps.ts';
import { ingestBatch } from '#core/archive/ingest.ts';
import { jsonl, trade } from '../helpers/records.ts';

const KEY = 'data-quality-key';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
const get = keyedGet(() => cloud.url, KEY);
/** The first whole hour of the seeded history, and the time detection ran through. */
let hour0 = 0;
let through = 0;

beforeAll(async () => {
  // The seed starts on the hour at least an hour back, so its first hour (and both holes in it) lies wholly in the past.
  cloud = await startDemoCloud({ key: KEY });
  hour0 = Math.floor((Date.now() - HOUR) / HOUR) * HOUR;
  through = Math.floor(Date.now() / MINUTE) * MINUTE;
  await runDetectionOver(hour0, through);
});
afterAll(async () => {
  await cloud?.stop();
});

/** What a detector finds over [from, to), read straight from the archive: the ids incidents must carry. */
async function detected(type: string, from: number, to: number, sets: Record<string, unknown>[] = [{}]) {
  const detector = MINUTE_DETECTORS.find((d) => d.type === type)!;
  return detector.detection.detect(minuteContext({ archive: archiveDeps(), breadth: undefined as never, references: undefined as never }, from, to), sets);
}

const at = (minute: number) => hour0 + minute * MINUTE;
const covers = (gap: { start: string; end: string }, from: number, to: number) => Date.parse(gap.start) <= from && Date.parse(gap.end) >= to;

describe('the altx trade stop', () => {
  const hole = DEMO_HOLES.altxTrades;

  it('is a gap in the trade coverage of an altx market that trades throughout', async () => {
    // Act
    const { status, body } = await get('/v1/data-quality/coverage/altx/BTC', { from: hour0, to: through });

    // Assess
    expect(status, JSON.stringify(body)).toBe(200);
    const trades = body.data.data_types.trades;
    expect(
      trades.gaps.some((g: { start: string; end: string }) => covers(g, at(hole.fromMinute), at(hole.toMinute))),
      JSON.stringify(trades.gaps),
    ).toBe(true);
    expect(trades.completeness).toBeLessThan(100);
    expect(trades.completeness).toBeGreaterThan(0);
  });

  it("opens an incident under the detector's incident_id and resolves it when trading resumes", async () => {
    // Prepare
    const [opened] = await detected('archive.gap_detected', at(hole.fromMinute), at(hole.toMinute + 10));
    const [resolved] = await detected('archive.gap_resolved', at(hole.fromMinute), at(hole.toMinute + 10));
    expect(opened?.data.incident_id).toBe(resolved?.data.incident_id);

    // Act
    const { status, body } = await get(`/v1/data-quality/incidents/${opened!.data.incident_id}`);
    const listed = await get('/v1/data-quality/incidents', { exchange: 'altx', status: 'resolved', since: hour0 });

    // Assess
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data).toMatchObject({
      id: opened!.data.incident_id,
      status: 'resolved',
      exchange: 'altx',
      data_types: ['trades'],
      started_at: opened!.data.last_data_at,
      resolved_at: resolved!.data.resumed_at,
    });
    expect(body.data.duration_minutes).toBeGreaterThanOrEqual(hole.toMinute - hole.fromMinute);
    expect(listed.body.data.incidents.map((i: { id: string }) => i.id)).toContain(opened!.data.incident_id);
    expect(body.data.records_affected).toBeGreaterThan(0);
    expect(body.data.records_recovered).toBe(0);
  });

  it('counts the records a late batch recovers inside the gap', async () => {
    // Prepare: the detector's incident, then ten BTC trades of the silence arriving late.
    const [opened] = await detected('archive.gap_detected', at(hole.fromMinute), at(hole.toMinute + 10));
    const late = Array.from({ length: 10 }, (_, i) =>
      trade({ family: 'altx', symbol: 'BTC', ts: at(hole.fromMinute + 2) + i * 1_000, trade_id: 9_000_000_000 + i }),
    );
    expect(await ingestBatch(archiveDeps(), 'normalized', jsonl(late))).toMatchObject({ status: 'ingested' });

    // Act
    const { body } = await get(`/v1/data-quality/incidents/${opened!.data.incident_id}`);

    // Assess
    expect(body.data.records_recovered).toBe(10);
  });
});

describe('the hip3 book stall', () => {
  const hole = DEMO_HOLES.stalledBook;

  it("is a gap in the market's book coverage, and no other hip3 book has one", async () => {
    // Act
    const stalled = await get(`/v1/data-quality/coverage/hip3/${encodeURIComponent(hole.symbol)}`, { from: hour0, to: through });
    const other = await get(`/v1/data-quality/coverage/hip3/${encodeURIComponent(cloud.demo!.market.symbols().hip3.find((s) => s !== hole.symbol)!)}`, {
      from: hour0,
      to: through,
    });

    // Assess
    const book = stalled.body.data.data_types.l2_snapshots;
    expect(
      book.gaps.some((g: { start: string; end: string }) => covers(g, at(hole.fromMinute), at(hole.toMinute))),
      JSON.stringify(book.gaps),
    ).toBe(true);
    expect(book.cadence.median_interval_seconds).toBeGreaterThan(40);
    expect(book.cadence.median_interval_seconds).toBeLessThan(80);
    expect(other.body.data.data_types.l2_snapshots.gaps.filter((g: { end: string }) => Date.parse(g.end) < through - 10 * MINUTE)).toEqual([]);
  });

  it("opens an incident for that market under the stall detector's incident_id, resolved at the recovery", async () => {
    // Prepare
    const sets = [{ threshold_s: DEFAULT_STALL_THRESHOLD_S }];
    const stall = (await detected('ingest.stall', at(hole.fromMinute), at(hole.toMinute + 5), sets)).find(
      (c) => c.scope === 'per_market' && c.symbol === hole.symbol,
    );
    const recovery = (await detected('ingest.recovered', at(hole.fromMinute), at(hole.toMinute + 5), sets)).find(
      (c) => c.scope === 'per_market' && c.symbol === hole.symbol,
    );
    expect(stall?.data.incident_id).toBe(recovery?.data.incident_id);

    // Act
    const { body } = await get(`/v1/data-quality/incidents/${stall!.data.incident_id}`);

    // Assess
    expect(body.data).toMatchObject({
      id: stall!.data.incident_id,
      status: 'resolved',
      exchange: 'hip3',
      symbols_affected: [hole.symbol],
      data_types: ['l2_snapshots'],
      started_at: stall!.data.last_update_at,
    });
  });
});

describe('coverage figures', () => {
  it('count exactly the rows the archive holds for a market, and never put completeness above 100%', async () => {
    // Prepare: windows that hold every file of the market whole (the route prorates a file across an edge).
    const from = Date.now() - (DEMO.hours + 2) * HOUR;
    const archived = async (to: number) => {
      const source = (await windowSource(archiveDeps(), { dataset: 'trades', family: 'perpx', symbol: 'BTC', from, to }))!;
      const [{ n }] = (await archiveDeps().sql.query({ sql: `SELECT count(*) AS n FROM (${source.sql})`, params: source.params })) as [{ n: bigint }];
      return Number(n);
    };

    // Act: the demo keeps trading, so the route is asked (a new window each time: answers are cached
    // by window) until no batch landed while it answered.
    let body: any;
    for (let settled = false; !settled; ) {
      const to = Date.now() + HOUR;
      const before = await archived(to);
      ({ body } = await get('/v1/data-quality/coverage/perpx/BTC', { from, to }));
      const after = await archived(to);
      settled = before === after;
      // Assess
      if (settled) expect(body.data.data_types.trades.total_records).toBe(after);
    }
    for (const coverage of Object.values(body.data.data_types) as { completeness: number; historical_coverage: number }[]) {
      expect(coverage.completeness).toBeLessThanOrEqual(100);
      expect(coverage.historical_coverage).toBeLessThanOrEqual(coverage.completeness);
    }
  });

  it("answer a venue's coverage per data type, and say when it was measured", async () => {
    const { status, body } = await get('/v1/data-quality/coverage/hip3');
    expect(status).toBe(200);
    expect(body.data.exchange).toBe('hip3');
    expect(body.data.data_types.l2_snapshots.symbols).toBe(cloud.demo!.market.symbols().hip3.length);
    expect(Date.parse(body.meta.cached_at)).toBeLessThanOrEqual(Date.now());
  });

  it("give the month's SLA in percent, as the reference client reads it", async () => {
    const { status, body } = await get('/v1/data-quality/sla');
    expect(status).toBe(200);
    expect(body.data.sla_targets).toEqual({ uptime: 99.9, data_completeness: 99.5, api_latency_p99_ms: 500 });
    const { uptime, data_completeness: completeness } = body.data.actual;
    for (const value of [uptime, ...(Object.values(completeness) as number[])]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(100);
    }
    // The demo archive is mostly complete: a fraction (at most 1) would be read as about 1%.
    expect(completeness.overall).toBeGreaterThan(1);
  });

  it('report the open incidents and per-family status', async () => {
    const { status, body } = await get('/v1/data-quality/status');
    expect(status).toBe(200);
    const open = await get('/v1/data-quality/incidents', { status: 'open', limit: 100 });
    expect(body.data.active_incidents).toBe(open.body.data.pagination.total);
    for (const dataType of Object.values(body.data.data_types) as { completeness_24h: number }[]) expect(dataType.completeness_24h).toBeLessThanOrEqual(100);
  });
});

describe('the public catalogue', () => {
  it('lists every market of the demo with its data types, coverage and size, without a key', async () => {
    // Act
    const res = await fetch(`${cloud.url}/v1/symbols`);
    const body = (await res.json()) as {
      data: { symbol: string; exchange: string; data_types: string[]; size_per_day: Record<string, number>; coverage_from: string }[];
    };

    // Assess
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('max-age=300');
    const symbols = cloud.demo!.market.symbols();
    for (const exchange of ['perpx', 'hip3', 'altx'] as const) {
      const listed = body.data.filter((e) => e.exchange === exchange).map((e) => e.symbol);
      expect(listed, exchange).toEqual(expect.arrayContaining([...symbols[exchange]]));
    }
    const stalled = body.data.find((e) => e.exchange === 'hip3' && e.symbol === DEMO_HOLES.stalledBook.symbol)!;
    expect(stalled.data_types).toEqual(expect.arrayContaining(['trades', 'l2_snapshots']));
    expect(stalled.size_per_day.l2_snapshots).toBeGreaterThan(0);
  });

  it('answers stats and the coverage status without a key', async () => {
    const stats = (await (await fetch(`${cloud.url}/v1/stats`)).json()) as { data: { symbols: number; records_24h: number } };
    const symbols = (await (await fetch(`${cloud.url}/v1/symbols`)).json()) as { data: unknown[] };
    expect(stats.data.symbols).toBe(symbols.data.length);
    expect(stats.data.records_24h).toBeGreaterThan(0);
    const coverage = await fetch(`${cloud.url}/v1/status/coverage`);
    expect(coverage.status).toBe(200);
    expect(((await coverage.json()) as { data: { exchanges: unknown[] } }).data.exchanges).toHaveLength(6);
  });
});

describe('bad input', () => {
  it.each([
    ['/v1/data-quality/coverage/nasdaq', {}, 'exchange'],
    ['/v1/data-quality/coverage/nasdaq/BTC', {}, 'exchange'],
    ['/v1/data-quality/incidents', { status: 'closed' }, 'status'],
    ['/v1/data-quality/incidents', { exchange: 'nasdaq' }, 'exchange'],
    ['/v1/data-quality/sla', { year: 1999 }, 'year'],
    ['/v1/data-quality/sla', { month: 13 }, 'month'],
    ['/v1/data-quality/coverage/perpx/BTC', { from: 2000, to: 1000 }, 'from'],
    ['/v1/data-quality/coverage/perpx/BTC', { to: 'yesterday' }, 'to'],
  ] as const)('%s %j is a 400 naming %s', async (path, query, param) => {
    const { status, body } = await get(path, query);
    expect(status, JSON.stringify(body)).toBe(400);
    expect(body.param).toBe(param);
    if (param === 'exchange' || param === 'status') expect(body.valid_values.length).toBeGreaterThan(0);
  });

  it('answers 404 not_found for an unknown incident', async () => {
    const { status, body } = await get('/v1/data-quality/incidents/0000000000000000');
    expect(status).toBe(404);
    expect(body.error_code).toBe('not_found');
  });
});
