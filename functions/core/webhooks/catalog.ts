/**
 * The webhook event-type catalogue: the declarations of the event registry (core/events/), served
 * by `GET /v1/webhooks/event-types` and used to validate configurations. 28 types are declared and
 * 24 are live; a type that is not live refuses subscriptions.
 */
import { EVENT_TYPES } from '../events/registry.ts';
import { OPERATORS, type EventTypeDecl, type MetricType } from '../events/declare.ts';

export const EVENT_TYPE_BY_NAME: ReadonlyMap<string, EventTypeDecl> = new Map(EVENT_TYPES.map((d) => [d.type, d]));

/** The operator groups a metric type accepts (every metric also takes the `any` group). */
export function operatorsFor(type: MetricType): readonly string[] {
  const group = type === 'number' || type === 'integer' ? OPERATORS.number : type === 'text' || type === 'enum' ? OPERATORS.text : OPERATORS[type];
  return [...group, ...OPERATORS.any];
}

/** The catalogue entry as served by GET /v1/webhooks/event-types. */
export function publicDeclaration(d: EventTypeDecl) {
  const metricTypes = new Set(Object.values(d.metrics).map((m) => (m.type === 'integer' ? 'number' : m.type === 'enum' ? 'text' : m.type)));
  return {
    type: d.type,
    schema_version: 1,
    live: d.live,
    description: d.description,
    scope: d.scope,
    venues: [...d.venues],
    filters: [...d.scopeKeys, 'conditions', 'params', ...(d.notionalMetric ? ['min_notional_usd'] : []), ...Object.keys(d.params)],
    params: d.params,
    metrics: d.metrics,
    operators: Object.fromEntries([...[...metricTypes].map((t) => [t, OPERATORS[t as keyof typeof OPERATORS]]), ['any', OPERATORS.any]]),
    cost_floor: d.costFloor,
    latency_class: d.latencyClass,
    filters_example: filtersExample(d),
  };
}

function filtersExample(d: EventTypeDecl): Record<string, unknown> {
  const example: Record<string, unknown> = {};
  if (d.scopeKeys.includes('venue') && d.venues[0]) example.venue = d.venues[0];
  if (d.scopeKeys.includes('symbols')) example.symbols = [d.venues[0] === 'hip3' ? 'xyz:TSLA' : d.venues[0] === 'hip4' ? '#10' : 'BTC'];
  if (d.notionalMetric) example.min_notional_usd = 10_000;
  const condition = exampleCondition(d);
  if (condition) example.conditions = [condition];
  const firstParam = Object.entries(d.params)[0];
  if (firstParam) example.params = { [firstParam[0]]: firstParam[1].default };
  return example;
}

/** A condition on the type's most telling metric: a number other than the notional (which min_notional_usd shows), else a choice, else text. */
function exampleCondition(d: EventTypeDecl): { metric: string; op: string; value?: unknown } | undefined {
  const metrics = Object.entries(d.metrics);
  const numeric = metrics.find(([name, m]) => (m.type === 'number' || m.type === 'integer') && name !== d.notionalMetric);
  if (numeric) {
    const [name] = numeric;
    const value = /pct/.test(name) ? 5 : /usd|value|amount|notional/.test(name) ? 100_000 : /_s$/.test(name) ? 60 : 1;
    return { metric: name, op: 'greater_than_or_equal', value };
  }
  // A choice other than the venue (the scope says that), else the venue.
  const choice =
    metrics.find(([name, m]) => m.type === 'enum' && m.values?.length && name !== 'venue') ?? metrics.find(([, m]) => m.type === 'enum' && m.values?.length);
  if (choice) return { metric: choice[0], op: 'in', value: [choice[1].values![0]] };
  const text = metrics.find(([, m]) => m.type === 'text');
  return text ? { metric: text[0], op: 'is_not_empty' } : undefined;
}
