/**
 * Detection puts an account event only to the rules watching its address (issue 43): a fill or
 * order event of an unwatched address is dropped by a set lookup before any rule is asked, and a
 * watched one is asked of its watchers' rules only. Evaluations are counted through the evaluator
 * argument, never timed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { detectInBatch } from '#core/detect/batch-run.ts';
import { matchCandidates, watchedBy, type ActiveRule, type DetectDeps, type RuleBook, type RuleEvaluator } from '#core/detect/dispatch.ts';
import { matches } from '#core/detect/match.ts';
import type { Candidate } from '#core/events/kit/candidate.ts';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';
import type { EndpointRecord, SubscriptionRecord } from '#ports/webhooks.ts';
import type { NormalizedRecord, OrderEventRecord, TradeRecord } from '#schemas/datasets.ts';
import { T0 } from '#test/helpers/records.ts';

const addressOf = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const WATCHED = addressOf(0xa11ce);
const OTHER_WATCHED = addressOf(0xb0b);
const TS = T0 + 60_000;

let ids = 0;
function rule(type: string, accountId: string, watched: readonly string[], filters: unknown = {}): ActiveRule {
  const set = new Set(watched);
  const id = `r${ids++}`;
  const subscription = {
    id,
    accountId,
    endpointId: `e-${id}`,
    eventType: type,
    enabled: true,
    triggerId: `t-${id}`,
    filters: normalizeConfig(EVENT_TYPE_BY_NAME.get(type)!, filters, set),
  };
  return {
    plan: 'enterprise',
    subscription: subscription as unknown as SubscriptionRecord,
    endpoint: { id: `e-${id}`, accountId } as EndpointRecord,
    watched: set,
  };
}

const bookOf = (rules: readonly ActiveRule[]): RuleBook => ({ rules: async (type) => rules.filter((r) => r.subscription.eventType === type) });

/** Counts the rule evaluations and answers as `matches` would. */
function counting(): { evaluate: RuleEvaluator; count: () => number } {
  let n = 0;
  return {
    evaluate: (...args) => {
      n += 1;
      return matches(...args);
    },
    count: () => n,
  };
}

/** The stores, queues and references must not be reached when nothing matches: any use throws. */
const untouchable = new Proxy(
  {},
  {
    get: (_, name) => {
      throw new Error(`unexpected use of ${String(name)}`);
    },
  },
);

function fill(trade_id: number, user: string): TradeRecord {
  return {
    dataset: 'trades',
    family: 'perpx',
    symbol: 'BTC',
    ts: TS,
    trade_id,
    side: 'B',
    price: '90000',
    size: '0.01',
    crossed: true,
    user_address: user,
  } as TradeRecord;
}

function engineCancel(oid: number, user: string): OrderEventRecord {
  return {
    dataset: 'order_events',
    family: 'perpx',
    symbol: 'BTC',
    ts: TS,
    event: 'status',
    block_number: 1,
    seq: oid,
    oid,
    user_address: user,
    side: 'B',
    status: 'marginCanceled',
    order_type: 'Limit',
    reduce_only: false,
    is_trigger: false,
    is_position_tpsl: false,
  } as unknown as OrderEventRecord;
}

// Two accounts with account rules of both kinds read from the venue's node files, one market rule.
const RULES = [
  rule('account.fill', 'acct-a', [WATCHED]),
  rule('account.fill', 'acct-a', [WATCHED], { min_notional_usd: 10 }),
  rule('account.order_rejected', 'acct-a', [WATCHED]),
  rule('account.fill', 'acct-b', [OTHER_WATCHED]),
  rule('account.fill', 'acct-b', [OTHER_WATCHED]),
  rule('account.fill', 'acct-b', [OTHER_WATCHED]),
  rule('market.liquidation', 'acct-b', [], { symbols: ['BTC'] }),
];

describe('detection filters watched addresses before any rule', () => {
  it('asks no rule about the fills and engine cancels of unwatched addresses', async () => {
    // Prepare
    const { evaluate, count } = counting();
    const deps = { ...(untouchable as DetectDeps), rules: bookOf(RULES), evaluate };
    const records = Array.from({ length: 500 }, (_, i) => [
      fill(i, addressOf(0x100000 + i)),
      engineCancel(i, addressOf(0x200000 + i)),
    ]).flat() as NormalizedRecord[];

    // Act
    const counts = await detectInBatch(deps, records);

    // Assess
    expect(counts).toEqual({ candidates: 0, matched: 0 });
    expect(count()).toBe(0);
  });

  it("asks only the rules of the accounts watching a fill's address", async () => {
    // Prepare
    const { evaluate, count } = counting();
    const candidate: Candidate = {
      type: 'account.fill',
      key: 'fill:1',
      occurredAt: TS,
      venue: 'perpx',
      symbol: 'BTC',
      address: WATCHED,
      data: {},
      metrics: { venue: 'perpx', symbol: 'BTC', address: WATCHED, side: 'buy', notional_usd: 900, taker: true, fill_count: 1 },
    };

    // Act
    const matched = await matchCandidates(bookOf(RULES), [candidate, { ...candidate, key: 'fill:2', address: addressOf(0xdead) }], evaluate);

    // Assess: acct-a's two fill rules are asked and take it; acct-b's three are never asked.
    expect(count()).toBe(2);
    expect(matched.map((m) => m.rule.subscription.accountId)).toEqual(['acct-a', 'acct-a']);
  });

  it('matches exactly what asking every rule matches', async () => {
    const addresses = Array.from({ length: 6 }, (_, i) => addressOf(0x5000 + i));
    const arbitraryRule = fc.record({
      type: fc.constantFrom('account.fill', 'account.order_rejected', 'market.liquidation'),
      account: fc.constantFrom('a', 'b', 'c'),
      watched: fc.subarray(addresses),
      minNotional: fc.option(fc.constantFrom(10, 1_000, 100_000), { nil: undefined }),
    });
    const arbitraryCandidate = fc.record({
      type: fc.constantFrom('account.fill', 'account.order_rejected', 'market.liquidation'),
      address: fc.option(fc.constantFrom(...addresses), { nil: null }),
      notional: fc.integer({ min: 1, max: 1_000_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(arbitraryRule, { maxLength: 12 }), fc.array(arbitraryCandidate, { maxLength: 10 }), async (drawn, drawnCandidates) => {
        const rules = drawn.map((r) =>
          rule(r.type, r.account, r.watched, r.type === 'account.order_rejected' || r.minNotional === undefined ? {} : { min_notional_usd: r.minNotional }),
        );
        const candidates = drawnCandidates.map(
          (c, i): Candidate => ({
            type: c.type,
            key: `k${i}`,
            occurredAt: TS,
            venue: 'perpx',
            symbol: 'BTC',
            address: c.type === 'market.liquidation' ? null : c.address,
            data: {},
            metrics: {
              venue: 'perpx',
              symbol: 'BTC',
              address: c.address,
              side: 'buy',
              notional_usd: c.notional,
              taker: true,
              fill_count: 1,
              reason: 'marginCanceled',
            },
          }),
        );
        // Every rule of the candidate's type asked, in the book's order.
        const expected = [];
        for (const type of new Set(candidates.map((c) => c.type))) {
          for (const c of candidates.filter((x) => x.type === type)) {
            for (const r of rules.filter((x) => x.subscription.eventType === type)) {
              if (matches(EVENT_TYPE_BY_NAME.get(type)!, r.subscription.filters, c, r.watched)) expected.push([r.subscription.id, c.key]);
            }
          }
        }
        const matched = await matchCandidates(bookOf(rules), candidates);
        expect(matched.map((m) => [m.rule.subscription.id, m.occurrence.key])).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("watches the union of every account type's rules' addresses, whether rules share a set or not", async () => {
    // Prepare: acct-a's rules share one set, as the rule book gives them; acct-c's have their own.
    const shared = new Set([WATCHED, addressOf(1)]);
    const rules = [
      { ...rule('account.fill', 'acct-a', []), watched: shared },
      { ...rule('account.order_rejected', 'acct-a', []), watched: shared },
      rule('account.fill', 'acct-c', [addressOf(2)]),
      rule('account.transfer', 'acct-c', [addressOf(3)]),
      rule('market.liquidation', 'acct-c', [addressOf(4)]),
    ];

    // Act
    const watched = await watchedBy(bookOf(rules), ['account.fill', 'account.order_rejected']);

    // Assess
    expect([...watched].sort()).toEqual([WATCHED, addressOf(1), addressOf(2)].sort());
  });

  it('answers the same from a rule list it has indexed before', async () => {
    // Prepare: one list handed out twice, as a book does until it reloads.
    const fills = RULES.filter((r) => r.subscription.eventType === 'account.fill');
    const book: RuleBook = { rules: async (type) => (type === 'account.fill' ? fills : []) };
    const candidate: Candidate = {
      type: 'account.fill',
      key: 'fill:3',
      occurredAt: TS,
      venue: 'perpx',
      symbol: 'BTC',
      address: OTHER_WATCHED,
      data: {},
      metrics: { venue: 'perpx', symbol: 'BTC', address: OTHER_WATCHED, side: 'buy', notional_usd: 900, taker: true, fill_count: 1 },
    };

    // Act
    const first = await matchCandidates(book, [candidate]);
    const second = await matchCandidates(book, [candidate]);

    // Assess
    expect(first).toHaveLength(3);
    expect(second.map((m) => m.rule)).toEqual(first.map((m) => m.rule));
  });
});
