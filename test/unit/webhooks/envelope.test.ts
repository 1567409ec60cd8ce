import { describe, expect, it } from 'vitest';
import { buildEnvelope, deliveryIdOf, eventIdOf, type Occurrence } from '#core/webhooks/envelope.ts';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PRODUCED_AT = Date.UTC(2026, 8, 19, 12, 0, 0);
const TEN_MIN_MS = 10 * 60_000;

function occurrence(overrides: Partial<Occurrence> = {}): Occurrence {
  return {
    key: 'perpx:liquidation:BTC:0xabc:17',
    type: 'liquidation.v1',
    occurredAt: PRODUCED_AT - 1_000,
    data: { coin: 'BTC', size: '1.5', api_url: '/v1/perpx/liquidations/BTC?start=1758240000000' },
    ...overrides,
  };
}

describe('eventIdOf', () => {
  it('returns the same id for the same occurrence key and trigger', () => {
    // Prepare
    const key = 'perpx:liquidation:BTC:0xabc:17';
    // Act
    const first = eventIdOf(key, 'trigger-1');
    const second = eventIdOf(key, 'trigger-1');
    // Assess
    expect(second).toBe(first);
  });

  it('returns another id when the trigger or the occurrence key differs', () => {
    // Prepare
    const base = eventIdOf('occ-1', 'trigger-min-size-1');
    // Act
    const otherTrigger = eventIdOf('occ-1', 'trigger-min-size-10');
    const otherKey = eventIdOf('occ-2', 'trigger-min-size-1');
    // Assess
    expect(otherTrigger).not.toBe(base);
    expect(otherKey).not.toBe(base);
    expect(otherKey).not.toBe(otherTrigger);
  });

  it('returns a UUID-shaped version 8 id', () => {
    // Prepare
    const inputs = Array.from({ length: 50 }, (_, i) => [`occ-${i}`, `trigger-${i % 7}`] as const);
    // Act
    const ids = inputs.map(([key, trigger]) => eventIdOf(key, trigger));
    // Assess
    for (const id of ids) expect(id).toMatch(UUID_V8);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('deliveryIdOf', () => {
  it('returns one id per (event, endpoint) and another per endpoint', () => {
    // Prepare
    const eventId = eventIdOf('occ-1', 'trigger-1');
    // Act
    const a1 = deliveryIdOf(eventId, 'endpoint-a');
    const a2 = deliveryIdOf(eventId, 'endpoint-a');
    const b = deliveryIdOf(eventId, 'endpoint-b');
    // Assess
    expect(a2).toBe(a1);
    expect(b).not.toBe(a1);
    expect(a1).toMatch(UUID_V8);
    expect(a1).not.toBe(eventId);
  });
});

describe('buildEnvelope', () => {
  it('returns the envelope members with the data passed through', () => {
    // Prepare
    const occ = occurrence();
    const eventId = eventIdOf(occ.key, 'trigger-1');
    // Act
    const envelope = buildEnvelope(eventId, occ, PRODUCED_AT);
    // Assess
    expect(envelope).toEqual({
      id: eventId,
      type: 'liquidation.v1',
      schema_version: 1,
      observed_at: '2026-09-19T12:00:00.000Z',
      late_ms: 1_000,
      late: false,
      data: occ.data,
    });
  });

  it('returns late false when the occurrence is exactly 10 min old', () => {
    // Prepare
    const occ = occurrence({ occurredAt: PRODUCED_AT - TEN_MIN_MS });
    // Act
    const envelope = buildEnvelope('id', occ, PRODUCED_AT);
    // Assess
    expect(envelope.late_ms).toBe(TEN_MIN_MS);
    expect(envelope.late).toBe(false);
  });

  it('returns late true when the occurrence is 10 min and 1 ms old', () => {
    // Prepare
    const occ = occurrence({ occurredAt: PRODUCED_AT - TEN_MIN_MS - 1 });
    // Act
    const envelope = buildEnvelope('id', occ, PRODUCED_AT);
    // Assess
    expect(envelope.late_ms).toBe(TEN_MIN_MS + 1);
    expect(envelope.late).toBe(true);
  });

  it('returns no late_ms or late when the occurrence has no timestamp', () => {
    // Prepare
    const occ = occurrence({ occurredAt: null });
    // Act
    const envelope = buildEnvelope('id', occ, PRODUCED_AT);
    // Assess
    expect(envelope).not.toHaveProperty('late_ms');
    expect(envelope).not.toHaveProperty('late');
  });

  it('returns late_ms 0 when the occurrence is after the production time', () => {
    // Prepare
    const occ = occurrence({ occurredAt: PRODUCED_AT + 5_000 });
    // Act
    const envelope = buildEnvelope('id', occ, PRODUCED_AT);
    // Assess
    expect(envelope.late_ms).toBe(0);
    expect(envelope.late).toBe(false);
  });

  it('throws when data.api_url is not a /v1/ REST path', () => {
    // Prepare
    const download = occurrence({ data: { api_url: 'https://bucket.s3.amazonaws.com/x.parquet' } });
    const notString = occurrence({ data: { api_url: 42 } });
    // Act
    const buildDownload = () => buildEnvelope('id', download, PRODUCED_AT);
    const buildNotString = () => buildEnvelope('id', notString, PRODUCED_AT);
    // Assess
    expect(buildDownload).toThrow(/api_url/);
    expect(buildNotString).toThrow(/api_url/);
  });

  it('returns an envelope when data.api_url is a /v1/ REST path', () => {
    // Prepare
    const occ = occurrence({ data: { api_url: '/v1/perpx/liquidations/BTC?start=1758240000000' } });
    // Act
    const envelope = buildEnvelope('id', occ, PRODUCED_AT);
    // Assess
    expect(envelope.data.api_url).toBe('/v1/perpx/liquidations/BTC?start=1758240000000');
  });

  it('returns a byte-identical JSON body when built twice from the same inputs', () => {
    // Prepare
    const eventId = eventIdOf('occ-1', 'trigger-1');
    // Act
    const first = JSON.stringify(buildEnvelope(eventId, occurrence(), PRODUCED_AT));
    const second = JSON.stringify(buildEnvelope(eventId, occurrence(), PRODUCED_AT));
    // Assess
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect(first).toBe(
      `{"id":"${eventId}","type":"liquidation.v1","schema_version":1,"observed_at":"2026-09-19T12:00:00.000Z","late_ms":1000,"late":false,`
        + '"data":{"coin":"BTC","size":"1.5","api_url":"/v1/perpx/liquidations/BTC?start=1758240000000"}}',
    );
  });
});

describe('a replayed occurrence', () => {
  it('is marked replay and late even when produced within the late threshold, keeping its id and data', () => {
    // Prepare
    const fresh = occurrence({ occurredAt: PRODUCED_AT - 1_000 });
    // Act
    const live = buildEnvelope('event-1', fresh, PRODUCED_AT);
    const replayed = buildEnvelope('event-1', fresh, PRODUCED_AT, { replay: true });
    // Assess
    expect(live).not.toHaveProperty('replay');
    expect(live.late).toBe(false);
    expect(replayed).toMatchObject({ id: 'event-1', late: true, replay: true, late_ms: 1_000, data: fresh.data });
  });
});
