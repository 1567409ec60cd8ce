/**
 * From candidates to queued deliveries: candidates of types that declare relative metrics get them
 * (`withReferences`), every account's rules of each candidate's type are loaded (cached briefly per
 * container), matched, and each match is handed to `queueOccurrence`, which counts, pauses or
 * queues it. Safe to run twice over the same records: ids are derived, so the second run finds its
 * deliveries and queues nothing new.
 */
import type { PlanName } from '../plans.ts';
import type { AccountStore } from '#ports/accounts.ts';
import type { EndpointRecord, SubscriptionRecord } from '#ports/webhooks.ts';
import { EVENT_TYPE_BY_NAME } from '../webhooks/catalog.ts';
import { queueOccurrences, type DeliveryDeps, type QueueOutcome, type QueueRequest } from '../webhooks/deliveries.ts';
import { groupBy } from '../group.ts';
import { mapBounded } from '../bounded.ts';
import { matches } from './match.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import { marketKey, relativeMetrics, type MarketReference, type ReferenceSource } from '../events/kit/relative-metrics.ts';
import type { Family } from '../venues.ts';

export interface ActiveRule {
  plan: PlanName;
  subscription: SubscriptionRecord;
  endpoint: EndpointRecord;
  /** The account's watched addresses (filled for `account.*` rules only). */
  watched: ReadonlySet<string>;
}

export interface RuleBook {
  rules(eventType: string): Promise<ActiveRule[]>;
}

/** Rules change rarely and every ingest batch needs them: a container keeps them for `ttlMs`. */
export function createRuleBook(deps: Pick<DeliveryDeps, 'store' | 'clock'> & { accounts: Pick<AccountStore, 'getAccount'>; ttlMs: number }): RuleBook {
  const cache = new Map<string, { at: number; rules: Promise<ActiveRule[]> }>();
  async function load(eventType: string): Promise<ActiveRule[]> {
    const decl = EVENT_TYPE_BY_NAME.get(eventType);
    const subscriptions = (await deps.store.rules.listOfType(eventType)).filter((s) => s.enabled);
    // Read once per account, not per rule: an enterprise account's hundreds of rules share them.
    const plans = new Map<string, Promise<PlanName | undefined>>();
    const endpointsOf = new Map<string, Promise<Map<string, EndpointRecord>>>();
    const watchedOf = new Map<string, Promise<ReadonlySet<string>>>();
    const loaded = await Promise.all(
      subscriptions.map(async (subscription): Promise<ActiveRule | undefined> => {
        const account = subscription.accountId;
        if (!plans.has(account)) {
          plans.set(
            account,
            deps.accounts.getAccount(account).then((a) => a?.plan),
          );
          endpointsOf.set(
            account,
            deps.store.endpoints.list(account).then((list) => new Map(list.map((e) => [e.id, e]))),
          );
        }
        if (decl?.scope === 'addresses' && !watchedOf.has(account)) {
          watchedOf.set(
            account,
            deps.store.rules.listAddresses(account).then((rows) => new Set(rows.map((r) => r.address))),
          );
        }
        const [plan, endpoints, watched] = await Promise.all([plans.get(account)!, endpointsOf.get(account)!, watchedOf.get(account)]);
        const endpoint = endpoints.get(subscription.endpointId);
        if (!plan || !endpoint) return undefined;
        return { plan, subscription, endpoint, watched: watched ?? new Set() };
      }),
    );
    return loaded.filter((r): r is ActiveRule => r !== undefined);
  }
  return {
    rules(eventType) {
      const now = deps.clock.now();
      const hit = cache.get(eventType);
      if (hit && now - hit.at < deps.ttlMs) return hit.rules;
      const rules = load(eventType);
      cache.set(eventType, { at: now, rules });
      rules.catch(() => cache.delete(eventType));
      return rules;
    },
  };
}

/** Every address some `account.*` rule of these types watches: what the account detectors look for. */
export async function watchedBy(book: RuleBook, eventTypes: readonly string[]): Promise<Set<string>> {
  const watched = new Set<string>();
  // An account's rules share its one set (createRuleBook): each set is walked once, not once a rule.
  const sets = new Set<ReadonlySet<string>>();
  for (const type of eventTypes) for (const rule of await book.rules(type)) sets.add(rule.watched);
  for (const set of sets) for (const address of set) watched.add(address);
  return watched;
}

export type DispatchCounts = Partial<Record<QueueOutcome, number>> & { candidates: number; matched: number };

/** Decides one rule on one candidate: `matches` (tests pass a wrapper to count how often it is asked). */
export type RuleEvaluator = typeof matches;

const ADDRESS_INDEXES = new WeakMap<readonly ActiveRule[], Map<string, ActiveRule[]>>();

/**
 * The rules of an account type by watched address: a candidate about an address is put only to the
 * rules whose account watches it, found by one lookup, never by asking each of the type's rules.
 */
function rulesByAddress(rules: readonly ActiveRule[]): Map<string, ActiveRule[]> {
  // Built once per loaded rule list (a book hands out the same list until it reloads).
  const built = ADDRESS_INDEXES.get(rules);
  if (built) return built;
  const index = new Map<string, ActiveRule[]>();
  ADDRESS_INDEXES.set(rules, index);
  for (const rule of rules) {
    for (const address of rule.watched) {
      const list = index.get(address);
      if (list) list.push(rule);
      else index.set(address, [rule]);
    }
  }
  return index;
}

const NO_RULES: readonly ActiveRule[] = [];

/** Every (rule, occurrence) pair the rules take from the candidates, in the candidates' order by type (rules in the book's order). */
export async function matchCandidates(book: RuleBook, candidates: readonly Candidate[], evaluate: RuleEvaluator = matches): Promise<QueueRequest[]> {
  const matched: QueueRequest[] = [];
  for (const [type, list] of groupBy(candidates, (c) => c.type)) {
    const decl = EVENT_TYPE_BY_NAME.get(type);
    if (!decl) throw new Error(`Detector produced an undeclared event type ${type}`);
    const rules = await book.rules(type);
    // An account type's candidate can match only a rule watching its address (match.ts asks the same).
    const byAddress = decl.scope === 'addresses' ? rulesByAddress(rules) : undefined;
    for (const candidate of list) {
      const asked = byAddress ? (candidate.address === null ? NO_RULES : (byAddress.get(candidate.address) ?? NO_RULES)) : rules;
      for (const rule of asked) {
        if (candidate.accountId !== undefined && rule.subscription.accountId !== candidate.accountId) continue;
        if (!evaluate(decl, rule.subscription.filters, candidate, rule.watched)) continue;
        matched.push({ rule, occurrence: { key: candidate.key, type, occurredAt: candidate.occurredAt, data: candidate.data } });
      }
    }
  }
  return matched;
}

export async function dispatch(deps: DeliveryDeps & { rules: RuleBook; evaluate?: RuleEvaluator }, candidates: readonly Candidate[]): Promise<DispatchCounts> {
  const matched = await matchCandidates(deps.rules, candidates, deps.evaluate);
  const counts: DispatchCounts = { candidates: candidates.length, matched: matched.length };
  for (const outcome of await queueOccurrences(deps, matched)) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

/** Reference lookups in flight at once. */
const REFERENCE_CONCURRENCY = 8;

export interface DetectDeps extends DeliveryDeps {
  rules: RuleBook;
  references: ReferenceSource;
  /** The rule evaluator, `matches` unless given (a test counts the evaluations through it). */
  evaluate?: RuleEvaluator;
}

/**
 * Adds the relative metrics (and `reference_at`) to the candidates of the types that declare them.
 * `batched`: the market references of all of them are read at once per family (`marketsAt`), as a
 * replay's page wants; otherwise per family and minute through the source's cache, as live
 * batches of a minute or two want.
 */
export async function withReferences(candidates: Candidate[], source: ReferenceSource, options: { batched?: boolean } = {}): Promise<Candidate[]> {
  const needs = (c: Candidate) =>
    'notional_pct_volume_1h' in (EVENT_TYPE_BY_NAME.get(c.type)?.metrics ?? {}) && typeof c.metrics.notional_usd === 'number' && c.symbol !== null;
  let batch: Map<string, Map<string, MarketReference>> | undefined;
  if (options.batched && source.marketsAt) {
    const byFamily = groupBy(candidates.filter(needs), (c) => c.venue);
    batch = new Map(
      await Promise.all(
        [...byFamily].map(
          async ([family, list]) =>
            [
              family,
              await source.marketsAt!(
                family as Family,
                list.map((c) => ({ symbol: c.symbol!, at: c.occurredAt })),
              ),
            ] as const,
        ),
      ),
    );
  }
  // Looked up concurrently (each market minute and wallet hour is loaded once, however many ask), but boundedly: a wallet's is a 30-day scan.
  return mapBounded(candidates, REFERENCE_CONCURRENCY, async (candidate) => {
    const metrics = EVENT_TYPE_BY_NAME.get(candidate.type)?.metrics ?? {};
    const notional = candidate.metrics.notional_usd;
    if (!('notional_pct_volume_1h' in metrics) || typeof notional !== 'number' || candidate.symbol === null) return candidate;
    const family = candidate.venue;
    const market = batch
      ? batch.get(family)?.get(marketKey(candidate.symbol, Math.floor(candidate.occurredAt / 60_000) * 60_000))
      : await source.market(family, candidate.symbol, candidate.occurredAt);
    const wallet =
      'notional_pct_wallet_volume_30d' in metrics && candidate.address
        ? ((await source.walletVolume30dUsd(candidate.address, candidate.occurredAt)) ?? 0)
        : undefined;
    const relative = relativeMetrics(family, candidate.symbol, notional, market, wallet);
    const referenceAt = market ? new Date(market.at).toISOString() : null;
    return { ...candidate, metrics: { ...candidate.metrics, ...relative }, data: { ...candidate.data, ...relative, reference_at: referenceAt } };
  });
}
