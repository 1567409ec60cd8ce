/**
 * What every backend of the webhook store ports must do, written once as vitest suites and run
 * against each implementation (test/integration/webhook-stores.test.ts runs them on dynalite).
 * Each test works in accounts of its own, so suites share one table.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type {
  AllowanceStore,
  Countable,
  DeliveryRecord,
  DeliveryStore,
  DetectionCursorStore,
  EndpointRecord,
  EndpointStore,
  RuleStore,
  SubscriptionRecord,
} from '#ports/webhooks.ts';

const T = '2026-11-21T12:00:00.000Z';
const account = () => `acct_${randomUUID().slice(0, 8)}`;
const id = () => randomUUID();
const count = (results: boolean[]) => results.filter(Boolean).length;

export function endpointRecord(accountId: string, overrides: Partial<EndpointRecord> = {}): EndpointRecord {
  return {
    id: id(),
    accountId,
    url: 'https://93.184.216.34/hook',
    description: '',
    status: 'active',
    secret: 'whsec_a',
    previousSecret: null,
    previousSecretExpiresAt: null,
    consecutiveFailures: 0,
    firstFailureAt: null,
    slowUntil: null,
    createdAt: T,
    ...overrides,
  };
}

export function subscriptionRecord(accountId: string, overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord {
  return {
    id: id(),
    accountId,
    endpointId: id(),
    eventType: `market.test_${randomUUID().slice(0, 6)}`,
    filters: { venue: ['perpx'], conditions: [], params: {} },
    enabled: true,
    pause: null,
    lastPause: null,
    triggerId: 'market.liquidation',
    createdAt: T,
    ...overrides,
  };
}

export function deliveryRecord(accountId: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id: id(),
    accountId,
    endpointId: id(),
    subscriptionId: null,
    eventId: id(),
    eventType: 'webhook.test',
    state: 'pending',
    run: 1,
    attempts: 0,
    firstAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    lastLatencyMs: null,
    nextAttemptAt: T,
    deliveredAt: null,
    createdAt: new Date().toISOString(),
    payload: { type: 'webhook.test' },
    ...overrides,
  };
}

/**
 * `store` as the service builds it; `answersLost`, when given, the same store over a client whose
 * every write lands and is then sent again, as the SDK does when a written write's answer is lost.
 */
export function endpointStoreContract(store: () => EndpointStore, answersLost?: () => EndpointStore): void {
  describe('EndpointStore', () => {
    it('puts, gets, lists oldest first and deletes, within one account only', async () => {
      const [a, b] = [account(), account()];
      const later = endpointRecord(a, { createdAt: '2026-11-21T13:00:00.000Z' });
      const earlier = endpointRecord(a);
      await store().put(later);
      await store().put(earlier);
      expect(await store().get(a, earlier.id)).toEqual(earlier);
      expect(await store().get(b, earlier.id)).toBeUndefined();
      expect((await store().list(a)).map((e) => e.id)).toEqual([earlier.id, later.id]);
      expect(await store().delete(a, earlier.id)).toBe(true);
      expect(await store().delete(a, earlier.id)).toBe(false);
      expect((await store().list(a)).map((e) => e.id)).toEqual([later.id]);
    });

    it('replaces an endpoint that exists, and never brings a deleted one back', async () => {
      const a = account();
      const endpoint = endpointRecord(a);
      await store().put(endpoint);
      expect(await store().replace({ ...endpoint, secret: 'whsec_b' })).toBe(true);
      expect(await store().get(a, endpoint.id)).toMatchObject({ secret: 'whsec_b' });
      await store().delete(a, endpoint.id);
      expect(await store().replace({ ...endpoint, secret: 'whsec_c' })).toBe(false);
      expect(await store().get(a, endpoint.id)).toBeUndefined();
    });

    it('counts a failure streak from its first failure, keeps every concurrent failure, and ends it on success', async () => {
      const a = account();
      const endpoint = endpointRecord(a);
      await store().put(endpoint);
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => store().noteFailure(a, endpoint.id, `2026-11-21T12:00:${String(i).padStart(2, '0')}.000Z`, `d1:1:${i}`)),
      );
      const streak = await store().get(a, endpoint.id);
      expect(streak?.consecutiveFailures).toBe(12);
      expect(streak?.firstFailureAt).toMatch(/^2026-11-21T12:00:\d\d\.000Z$/);
      await store().noteSuccess(a, endpoint.id);
      expect(await store().get(a, endpoint.id)).toMatchObject({ consecutiveFailures: 0, firstFailureAt: null });
      expect(await store().noteFailure(a, 'gone', T, 'd1:1:0')).toBeUndefined();
    });

    it("counts an attempt's failure once, however often it is noted", async () => {
      const a = account();
      const endpoint = endpointRecord(a);
      await store().put(endpoint);
      expect(await store().noteFailure(a, endpoint.id, T, 'd1:1:1')).toMatchObject({ failures: 1 });
      expect(await store().noteFailure(a, endpoint.id, T, 'd1:1:1')).toMatchObject({ failures: 1 });
      expect(await store().noteFailure(a, endpoint.id, T, 'd1:1:2')).toMatchObject({ failures: 2 });
      if (answersLost) expect(await answersLost().noteFailure(a, endpoint.id, T, 'd1:1:3')).toMatchObject({ failures: 3 });
      expect((await store().get(a, endpoint.id))?.consecutiveFailures).toBe(answersLost ? 3 : 2);
    });

    it('auto-disables only an active endpoint whose stored streak still meets the rule', async () => {
      const a = account();
      const endpoint = endpointRecord(a);
      await store().put(endpoint);
      for (let i = 0; i < 3; i += 1) await store().noteFailure(a, endpoint.id, T, `d1:1:${i}`);
      expect(await store().autoDisable(a, endpoint.id, { minFailures: 4, firstFailureAtOrBefore: T })).toBe(false);
      expect(await store().autoDisable(a, endpoint.id, { minFailures: 3, firstFailureAtOrBefore: '2026-11-21T11:00:00.000Z' })).toBe(false);
      expect(await store().autoDisable(a, endpoint.id, { minFailures: 3, firstFailureAtOrBefore: T })).toBe(true);
      expect((await store().get(a, endpoint.id))?.status).toBe('auto_disabled');
      expect(await store().autoDisable(a, endpoint.id, { minFailures: 3, firstFailureAtOrBefore: T })).toBe(false);
    });
  });
}

export function ruleStoreContract(store: () => RuleStore): void {
  describe('RuleStore', () => {
    it("puts, gets, lists and deletes rules, and finds every account's rules of one type", async () => {
      const [a, b] = [account(), account()];
      const mine = subscriptionRecord(a);
      const theirs = subscriptionRecord(b, { eventType: mine.eventType });
      const other = subscriptionRecord(a);
      for (const rule of [mine, theirs, other]) await store().put(rule);
      expect(await store().get(a, mine.id)).toEqual(mine);
      expect(await store().get(b, mine.id)).toBeUndefined();
      expect((await store().list(a)).map((r) => r.id).sort()).toEqual([mine.id, other.id].sort());
      expect((await store().listOfType(mine.eventType)).map((r) => r.id).sort()).toEqual([mine.id, theirs.id].sort());
      expect(await store().delete(a, mine.id)).toBe(true);
      expect(await store().delete(a, mine.id)).toBe(false);
      expect((await store().listOfType(mine.eventType)).map((r) => r.id)).toEqual([theirs.id]);
    });

    it('replaces a rule that exists (its pause kept), and never brings a deleted one back', async () => {
      const a = account();
      const rule = subscriptionRecord(a);
      await store().put(rule);
      await store().suppress(a, rule.id, { at: T, missedAt: T, reason: 'deliveries_per_day_cap' });
      expect(await store().replace({ ...rule, enabled: false })).toBe(true);
      expect(await store().get(a, rule.id)).toMatchObject({ enabled: false, pause: { reason: 'deliveries_per_day_cap' } });
      await store().delete(a, rule.id);
      expect(await store().replace(rule)).toBe(false);
      expect(await store().get(a, rule.id)).toBeUndefined();
      expect((await store().listOfType(rule.eventType)).map((r) => r.id)).toEqual([]);
    });

    it("pauses once, counts every concurrent miss, survives an owner's edit, and keeps the pause as lastPause on resume", async () => {
      const a = account();
      const rule = subscriptionRecord(a);
      await store().put(rule);
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store().suppress(a, rule.id, { at: `2026-11-21T12:0${i}:00.000Z`, missedAt: `2026-11-21T12:0${i}:30.000Z`, reason: 'deliveries_per_day_cap' }),
        ),
      );
      await store().put({ ...rule, enabled: false }); // the owner edits while paused
      const paused = await store().get(a, rule.id);
      expect(paused).toMatchObject({ enabled: false, pause: { reason: 'deliveries_per_day_cap', suppressedCount: 8 } });
      const resumed = await store().clearPause(a, rule.id, '2026-11-21T13:00:00.000Z');
      expect(resumed).toMatchObject({ enabled: false, pause: null, lastPause: { ...paused!.pause, resumedAt: '2026-11-21T13:00:00.000Z' } });
      expect(await store().clearPause(a, rule.id, '2026-11-21T14:00:00.000Z')).toEqual(resumed);
      await store().suppress(a, 'gone', { at: T, missedAt: T, reason: 'deliveries_per_day_cap' });
      expect(await store().get(a, 'gone')).toBeUndefined();
    });

    it('adds an address once (the first label stays), lists and deletes it', async () => {
      const a = account();
      const address = `0x${randomUUID().replaceAll('-', '').padEnd(40, '0')}`;
      const first = await store().addAddress(a, { address, label: 'desk', createdAt: T });
      const again = await store().addAddress(a, { address, label: 'other', createdAt: '2026-11-21T13:00:00.000Z' });
      expect(first).toEqual({ row: { address, label: 'desk', createdAt: T }, created: true });
      expect(again).toEqual({ row: first.row, created: false });
      expect(await store().listAddresses(a)).toEqual([first.row]);
      expect(await store().deleteAddress(a, address)).toBe(true);
      expect(await store().deleteAddress(a, address)).toBe(false);
    });
  });
}

/**
 * `store` as the service builds it; `answersLost`, when given, the same store over a client whose
 * every write lands and is then sent again (see `allowanceStoreContract`).
 */
export function deliveryStoreContract(store: () => DeliveryStore, answersLost?: () => DeliveryStore): void {
  describe('DeliveryStore', () => {
    if (answersLost) {
      it('claims an attempt and takes the queuing lease when the write lands and the SDK sends it again (its answer lost)', async () => {
        const a = account();
        const delivery = deliveryRecord(a);
        await store().create(delivery);
        expect(await answersLost().claimAttempt(a, delivery.id, { run: 1, attempts: 0 }, 'w1', 2_000, 1_000)).toBe(true);
        // Still a lease against anyone else.
        expect(await store().claimAttempt(a, delivery.id, { run: 1, attempts: 0 }, 'w2', 2_000, 1_500)).toBe(false);
        expect(await answersLost().leaseQueuing(a, 'w1', 9_000, 1_000)).toBe(true);
        expect(await store().leaseQueuing(a, 'w2', 9_000, 1_500)).toBe(false);
      });
    }

    it("creates a delivery once, reads it back in its account only, and lists an endpoint's log newest first", async () => {
      const a = account();
      const endpointId = id();
      const older = deliveryRecord(a, { endpointId, createdAt: new Date(Date.now() - 60_000).toISOString() });
      const newer = deliveryRecord(a, { endpointId });
      expect(await store().create(older)).toBe(true);
      expect(await store().create({ ...older, attempts: 5 })).toBe(false);
      await store().put(newer);
      expect(await store().get(a, older.id)).toEqual(older);
      expect(await store().get(account(), older.id)).toBeUndefined();
      expect((await store().list(a, endpointId, 10)).map((d) => d.id)).toEqual([newer.id, older.id]);
      expect((await store().list(a, endpointId, 1)).map((d) => d.id)).toEqual([newer.id]);
      expect(await store().list(account(), endpointId, 10)).toEqual([]);
    });

    it('grants one concurrent claim of an attempt, again only after the lease ends, and records only at the expected attempt', async () => {
      const a = account();
      const delivery = deliveryRecord(a);
      await store().create(delivery);
      const expected = { run: 1, attempts: 0 };
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => store().claimAttempt(a, delivery.id, expected, `w${i}`, 2_000, 1_000)));
      expect(count(claims)).toBe(1);
      const holder = `w${claims.indexOf(true)}`;
      expect(await store().claimAttempt(a, delivery.id, expected, 'other', 4_000, 1_500)).toBe(false);
      // The holder's own claim sent again (its answer lost) is still its own.
      expect(await store().claimAttempt(a, delivery.id, expected, holder, 2_000, 1_000)).toBe(true);
      expect(await store().claimAttempt(a, delivery.id, expected, 'later', 4_000, 2_500)).toBe(true);
      const attempted = { ...delivery, attempts: 1, state: 'failed' as const, lastStatusCode: 503 };
      expect(await store().recordAttempt(attempted, { run: 1, attempts: 1 })).toBe(false);
      expect(await store().recordAttempt(attempted, expected)).toBe(true);
      expect(await store().recordAttempt(attempted, expected)).toBe(false);
      expect(await store().get(a, delivery.id)).toEqual(attempted);
      // Recording released the lease: the next attempt can be claimed at once.
      expect(await store().claimAttempt(a, delivery.id, { run: 1, attempts: 1 }, 'next', 9_000, 2_600)).toBe(true);
      expect(await store().claimAttempt(a, delivery.id, { run: 0, attempts: 1 }, 'next', 9_000, 99_000)).toBe(false);
    });

    it("creates many deliveries at once, reports which of some ids exist, and lets one holder at a time take an account's queuing lease", async () => {
      const a = account();
      const endpointId = id();
      const many = Array.from({ length: 30 }, () => deliveryRecord(a, { endpointId }));
      await store().createMany(many);
      const found = await store().states(a, [many[0]!.id, many[29]!.id, 'absent', many[0]!.id]);
      expect([...found.keys()].sort()).toEqual([many[0]!.id, many[29]!.id].sort());
      const { payload: _payload, ...state } = many[29]!;
      expect(found.get(many[29]!.id)).toEqual(state);
      expect(await store().states(account(), [many[0]!.id])).toEqual(new Map());
      expect(await store().get(a, many[7]!.id)).toEqual(many[7]);
      expect(await store().list(a, endpointId, 50)).toHaveLength(30);

      const takes = await Promise.all(['w1', 'w2', 'w3'].map((holder) => store().leaseQueuing(a, holder, 2_000, 1_000)));
      expect(count(takes)).toBe(1);
      const holder = ['w1', 'w2', 'w3'][takes.indexOf(true)]!;
      await store().releaseQueuing(a, 'someone else'); // not theirs: nothing changes
      expect(await store().leaseQueuing(a, 'w4', 3_000, 1_500)).toBe(false);
      await store().releaseQueuing(a, holder);
      expect(await store().leaseQueuing(a, 'w4', 3_000, 1_500)).toBe(true);
      // A lease run out is taken over, and its old holder's release leaves the new one be.
      expect(await store().leaseQueuing(a, 'w5', 9_000, 3_500)).toBe(true);
      await store().releaseQueuing(a, 'w4');
      expect(await store().leaseQueuing(a, 'w6', 9_500, 4_000)).toBe(false);
    });
  });
}

/**
 * `store` as the service builds it; `answersLost`, when given, the same store over a client whose
 * every write lands and is then sent again, as the SDK does when a written write's answer is lost.
 */
export function allowanceStoreContract(store: () => AllowanceStore, answersLost?: () => AllowanceStore): void {
  describe('AllowanceStore', () => {
    it('never lets concurrent reservations pass the limit, and releases give units back (never below zero)', async () => {
      const a = account();
      const ids = Array.from({ length: 20 }, () => id());
      const results = await Promise.all(ids.map((unit) => store().reserve(a, 'endpoints', 7, unit, 1_000)));
      expect(count(results)).toBe(7);
      expect(await store().usage(a)).toEqual({ endpoints: 7, subscriptions: 0, addresses: 0 });
      expect((await store().counted(a, 'endpoints')).map((u) => u.id).sort()).toEqual(ids.filter((_, i) => results[i]).sort());
      for (const unit of ids) await store().release(a, 'endpoints', unit);
      expect((await store().usage(a)).endpoints).toBe(0);
      expect(await store().counted(a, 'endpoints')).toEqual([]);
      expect(count(await Promise.all(Array.from({ length: 5 }, () => store().reserve(a, 'addresses', null, id(), 1_000))))).toBe(5);
    });

    it('keeps usage equal to a model under any sequence of reservations and releases, each taken or given back once per item', async () => {
      const op = fc.record({ what: fc.constantFrom<Countable>('endpoints', 'subscriptions'), item: fc.integer({ min: 0, max: 5 }), reserve: fc.boolean() });
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 14 }), fc.integer({ min: 0, max: 4 }), async (ops, limit) => {
          const a = account();
          const held: Record<Countable, Set<number>> = { endpoints: new Set(), subscriptions: new Set(), addresses: new Set() };
          for (const { what, item, reserve } of ops) {
            if (reserve) {
              const room = held[what].has(item) || held[what].size < limit;
              expect(await store().reserve(a, what, limit, `item-${item}`, 1_000)).toBe(room);
              if (room) held[what].add(item);
            } else {
              await store().release(a, what, `item-${item}`);
              held[what].delete(item);
            }
          }
          expect(await store().usage(a)).toEqual({ endpoints: held.endpoints.size, subscriptions: held.subscriptions.size, addresses: 0 });
        }),
        { numRuns: 15 },
      );
    });

    it('counts deliveries per day up to the cap however many race, and separately per day', async () => {
      const a = account();
      const counted = await Promise.all(Array.from({ length: 15 }, () => store().countDelivery(a, '2026-11-21', id(), 10)));
      expect(count(counted)).toBe(10);
      expect(await store().deliveriesCounted(a, '2026-11-21')).toBe(10);
      expect(await store().countDelivery(a, '2026-11-22', id(), 10)).toBe(true);
      expect(await store().deliveriesCounted(a, '2026-11-22')).toBe(1);
      expect(await store().countDelivery(a, '2026-11-21', id(), null)).toBe(true);
      expect(await store().countDelivery(account(), '2026-11-21', id(), 0)).toBe(false);
    });

    it('counts many deliveries at once up to the cap however many race, granting what is left', async () => {
      const a = account();
      const ids = (n: number) => Array.from({ length: n }, () => id());
      const granted = await Promise.all([4, 7, 3, 9, 1].map((wanted) => store().countDeliveries(a, '2026-11-21', ids(wanted), 12)));
      expect(granted.reduce((x, y) => x + y, 0)).toBe(12);
      expect(granted.every((n, i) => n >= 0 && n <= [4, 7, 3, 9, 1][i]!)).toBe(true);
      expect(await store().deliveriesCounted(a, '2026-11-21')).toBe(12);
      expect(await store().countDeliveries(a, '2026-11-21', ids(5), 12)).toBe(0);
      expect(await store().countDeliveries(a, '2026-11-22', ids(5), 3)).toBe(3);
      expect(await store().countDeliveries(a, '2026-11-22', ids(50), null)).toBe(50);
      expect(await store().countDeliveries(account(), '2026-11-21', ids(5), 0)).toBe(0);
    });

    it('counts the same deliveries once when they are counted again (a batch redone after its worker died)', async () => {
      const a = account();
      const batch = [id(), id(), id()];
      expect(await store().countDeliveries(a, '2026-11-21', batch, 10)).toBe(3);
      expect(await store().countDeliveries(a, '2026-11-21', batch, 10)).toBe(3);
      const single = id();
      expect(await store().countDelivery(a, '2026-11-21', single, 10)).toBe(true);
      expect(await store().countDelivery(a, '2026-11-21', single, 10)).toBe(true);
      expect(await store().deliveriesCounted(a, '2026-11-21')).toBe(4);
      // At the cap, a batch counted before still stands counted; a new one is refused.
      expect(await store().countDeliveries(a, '2026-11-21', [id(), id(), id(), id(), id(), id()], 10)).toBe(6);
      expect(await store().countDeliveries(a, '2026-11-21', batch, 10)).toBe(3);
      expect(await store().countDeliveries(a, '2026-11-21', [id()], 10)).toBe(0);
      expect(await store().deliveriesCounted(a, '2026-11-21')).toBe(10);
    });

    if (answersLost) {
      it('counts once when every write lands and the SDK sends it again (its answer lost)', async () => {
        const a = account();
        const units = [id(), id(), id()];
        expect(await Promise.all(units.map((unit) => answersLost().reserve(a, 'subscriptions', 2, unit, 1_000)))).toSatisfy((r: boolean[]) => count(r) === 2);
        expect((await store().usage(a)).subscriptions).toBe(2);
        for (const unit of units) await answersLost().release(a, 'subscriptions', unit);
        expect((await store().usage(a)).subscriptions).toBe(0);
        expect(await answersLost().countDeliveries(a, '2026-11-21', [id(), id()], 5)).toBe(2);
        expect(await answersLost().countDelivery(a, '2026-11-21', id(), 5)).toBe(true);
        expect(await answersLost().countDeliveries(a, '2026-11-21', [id(), id(), id(), id()], 5)).toBe(2);
        expect(await store().deliveriesCounted(a, '2026-11-21')).toBe(5);
      });

      it('takes one token a call from a rate bucket when every write lands and the SDK sends it again (its answer lost)', async () => {
        const a = account();
        const taken = await Promise.all(Array.from({ length: 4 }, () => answersLost().takeToken(a, 'PREVIEW#1', 6, 2_000_000_000, id())));
        expect(count(taken)).toBe(4);
        // The bucket counted four calls, not eight: two more are left for anyone.
        expect(await Promise.all(Array.from({ length: 3 }, () => store().takeToken(a, 'PREVIEW#1', 6, 2_000_000_000, id())))).toSatisfy(
          (r: boolean[]) => count(r) === 2,
        );
      });
    }

    it("hands out exactly the bucket's tokens to concurrent takers, per bucket", async () => {
      const a = account();
      const taken = await Promise.all(Array.from({ length: 10 }, () => store().takeToken(a, 'PREVIEW#1', 6, 2_000_000_000, id())));
      expect(count(taken)).toBe(6);
      expect(await store().takeToken(a, 'PREVIEW#2', 6, 2_000_000_000, id())).toBe(true);
      expect(await store().takeToken(a, 'PREVIEW#3', 0, 2_000_000_000, id())).toBe(false);
    });

    it('takes one token a call however often the call is made again with its key, and refuses a spent bucket to a new key', async () => {
      const a = account();
      const key = id();
      expect(await store().takeToken(a, 'PREVIEW#1', 2, 2_000_000_000, key)).toBe(true);
      expect(await store().takeToken(a, 'PREVIEW#1', 2, 2_000_000_000, key)).toBe(true);
      expect(await store().takeToken(a, 'PREVIEW#1', 2, 2_000_000_000, id())).toBe(true);
      expect(await store().takeToken(a, 'PREVIEW#1', 2, 2_000_000_000, id())).toBe(false);
      // A call that took the last token is still granted when made again; one refused stays refused.
      expect(await store().takeToken(a, 'PREVIEW#1', 2, 2_000_000_000, key)).toBe(true);
    });
  });
}

export function detectionCursorStoreContract(store: () => DetectionCursorStore): void {
  describe('DetectionCursorStore', () => {
    it('only ever moves forwards, to the furthest of concurrent writes', async () => {
      const start = Math.max((await store().read()) ?? 0, Date.now()) + 60_000;
      await store().write(start);
      await store().write(start - 1);
      expect(await store().read()).toBe(start);
      await Promise.all([3, 1, 2].map((n) => store().write(start + n * 60_000)));
      expect(await store().read()).toBe(start + 3 * 60_000);
    });
  });
}
