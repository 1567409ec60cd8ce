/**
 * What every backend of the data-quality ports (functions/ports/quality.ts) must do: incidents
 * opened and resolved idempotently (a rerun of the detection run, a resolution seen without its
 * opening) and listed newest first; latency minutes of several containers read back by window.
 * Each test works with ids and times of its own, so suites share one table.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IncidentStore, LatencyMinute, LatencyStore, StoredIncident } from '#ports/quality.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A start of an hour of its own per test, later than any other test's. */
let hours = 0;
const freshHour = () => Date.UTC(2080, 0, 1) + hours++ * 1_000 * HOUR + Math.floor(Math.random() * 500) * HOUR;

const gap = (startedAt: number, overrides: Partial<StoredIncident> = {}): Omit<StoredIncident, 'resolvedAt'> => ({
  id: `inc_${randomUUID().slice(0, 8)}`,
  kind: 'archive_gap',
  exchange: 'altx',
  dataTypes: ['trades'],
  symbols: [],
  startedAt,
  detectedAt: startedAt + 5 * MINUTE,
  ...overrides,
});

export function incidentStoreContract(store: () => IncidentStore): void {
  describe('IncidentStore', () => {
    it('keeps the first opening, resolves it (again harmlessly), and lists newest first from `since`', async () => {
      const t0 = freshHour();
      const a = gap(t0);
      const b = gap(t0 + 60 * MINUTE, { kind: 'ingest_stall', exchange: 'perpx', dataTypes: ['orderbook'], symbols: ['BTC'] });
      await store().open(a);
      await store().open({ ...a, detectedAt: t0 + 9 * MINUTE, symbols: ['ETH'] });
      await store().resolve({ ...a, detectedAt: t0 + 20 * MINUTE, resolvedAt: t0 + 6 * MINUTE });
      await store().resolve({ ...a, detectedAt: t0 + 20 * MINUTE, resolvedAt: t0 + 6 * MINUTE });
      await store().open(b);
      expect(await store().get(a.id)).toEqual({ ...a, resolvedAt: t0 + 6 * MINUTE });
      expect(await store().get(b.id)).toEqual(b);
      expect((await store().list(t0)).map((i) => i.id)).toEqual([b.id, a.id]);
      expect((await store().list(t0 + 1)).map((i) => i.id)).toEqual([b.id]);
      expect(await store().list(t0 + 61 * MINUTE)).toEqual([]);
      expect(await store().get(`inc_${randomUUID()}`)).toBeUndefined();
    });

    it('creates an incident whole from a resolution whose opening it never saw', async () => {
      const t0 = freshHour();
      const incident = { ...gap(t0, { symbols: ['BTC'] }), resolvedAt: t0 + 20 * MINUTE };
      await store().resolve(incident);
      expect(await store().get(incident.id)).toEqual(incident);
      expect(await store().list(t0)).toEqual([incident]);
    });
  });
}

export function latencyStoreContract(store: () => LatencyStore): void {
  describe('LatencyStore', () => {
    const minute = (at: number, scope: string, count: number): LatencyMinute => ({
      minute: at,
      scope,
      count,
      sumMs: count * 10.5,
      hist: { '53': count, '61': 1 },
    });

    it("reads back every container's minutes of a window [from, to) across hours", async () => {
      const t0 = freshHour() + HOUR - 2 * MINUTE;
      const written = [
        ['c1', minute(t0, 'perpx', 3)],
        ['c2', minute(t0, 'perpx', 4)],
        ['c1', minute(t0, 'hip3', 2)],
        ['c1', minute(t0 + 3 * MINUTE, 'other', 5)],
        ['c1', minute(t0 + 4 * MINUTE, 'perpx', 6)],
        ['c1', minute(t0 - MINUTE, 'perpx', 7)],
      ] as const;
      for (const [container, m] of written) await store().put(container, m);
      const read = await store().range(t0, t0 + 4 * MINUTE);
      const key = (m: LatencyMinute) => `${m.minute}|${m.scope}|${m.count}`;
      expect(read.map(key).sort()).toEqual(
        written
          .slice(0, 4)
          .map(([, m]) => key(m))
          .sort(),
      );
      expect(read.find((m) => m.count === 3)).toEqual(written[0][1]);
      expect(await store().range(t0 + 5 * MINUTE, t0 + 3 * HOUR)).toEqual([]);
    });

    it("replaces a container's minute of one scope when written again", async () => {
      const t0 = freshHour();
      await store().put('c1', minute(t0, 'perpx', 3));
      await store().put('c1', minute(t0, 'perpx', 8));
      expect(await store().range(t0, t0 + MINUTE)).toEqual([minute(t0, 'perpx', 8)]);
    });
  });
}
