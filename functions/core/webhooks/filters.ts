/**
 * Subscription configuration (`filters`, alias `config`): scope keys, up to 16 conditions on
 * declared metrics, and declared params. Normalized on store: venues lowercased and listed,
 * operators in word form, `min_notional_usd` stored as a condition and mirrored back from the
 * loosest lower bound, declared params routed from the top level into `params` and every param
 * filled with its default. Anything undeclared or out of range is refused with a 400 that names
 * what is declared; nothing is silently dropped.
 */
import { AppError } from '../errors.ts';
import { operatorsFor } from './catalog.ts';
import type { EventTypeDecl, MetricDecl, ParamDecl, Venue } from '../events/declare.ts';
import type { Condition, StoredConfig } from '#schemas/stored.ts';

export type { Condition, StoredConfig };

export const MAX_CONDITIONS = 16;

const SYMBOL_ALIASES: Readonly<Record<string, string>> = {
  '>': 'greater_than',
  '>=': 'greater_than_or_equal',
  '<': 'less_than',
  '<=': 'less_than_or_equal',
  '==': 'equal',
  '=': 'equal',
  '!=': 'not_equal',
};
const NO_VALUE = new Set(['is_empty', 'is_not_empty']);
const RANGE = new Set(['between', 'not_between']);
const LIST = new Set(['in', 'not_in']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
/**
 * Bounds on every list and string of a configuration, so a stored rule stays far below DynamoDB's
 * 400 KB item (at these bounds a rule is at most about 60 KB): more is refused with 400 naming the
 * member, before anything is stored.
 */
export const CONFIG_BOUNDS = { symbols: 500, symbolChars: 64, addresses: 1_000, listValues: 100, textChars: 256 } as const;
const tooMany = (param: string, what: string, max: number) => bad(param, `At most ${max} ${what}.`);

const bad = (param: string, message: string, validValues?: readonly (string | number)[]) => new AppError('invalid_parameter', message, { param, validValues });

function checkScalar(metricName: string, metric: MetricDecl, value: unknown, param: string): unknown {
  switch (metric.type) {
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value) || (metric.type === 'integer' && !Number.isInteger(value))) {
        throw bad(param, `${metricName} takes ${metric.type === 'integer' ? 'integers' : 'numbers'}.`);
      }
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad(param, `${metricName} takes true or false.`);
      return value;
    case 'timestamp':
      if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) throw bad(param, `${metricName} takes RFC 3339 times.`);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !metric.values?.includes(value))
        throw bad(param, `${metricName} is one of: ${metric.values?.join(', ')}.`, metric.values);
      return value;
    case 'text':
      if (typeof value !== 'string') throw bad(param, `${metricName} takes text.`);
      if (value.length > CONFIG_BOUNDS.textChars) throw bad(param, `${metricName} takes text of at most ${CONFIG_BOUNDS.textChars} characters.`);
      return value;
  }
}

function normalizeCondition(decl: EventTypeDecl, raw: unknown, index: number): Condition {
  const param = `filters.conditions.${index}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad(param, 'Each condition is an object {metric, op, value}.');
  const { metric: metricName, op: rawOp, value, ...rest } = raw as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw bad(param, `Unknown condition members: ${Object.keys(rest).join(', ')}; a condition has metric, op and value.`);
  const declared = Object.keys(decl.metrics);
  if (typeof metricName !== 'string' || !decl.metrics[metricName]) {
    throw bad(`${param}.metric`, `${decl.type} declares the metrics: ${declared.join(', ') || '(none)'}.`, declared);
  }
  const metric = decl.metrics[metricName]!;
  if (rawOp === 'formula') throw bad(`${param}.op`, 'The formula operator is reserved and not accepted.');
  const op = typeof rawOp === 'string' ? (SYMBOL_ALIASES[rawOp] ?? rawOp) : '';
  const allowed = operatorsFor(metric.type);
  if (!allowed.includes(op)) throw bad(`${param}.op`, `${metricName} (${metric.type}) takes the operators: ${allowed.join(', ')}.`, allowed);

  if (NO_VALUE.has(op)) {
    if (value !== undefined) throw bad(`${param}.value`, `${op} takes no value.`);
    return { metric: metricName, op };
  }
  if (RANGE.has(op)) {
    if (!Array.isArray(value) || value.length !== 2) throw bad(`${param}.value`, `${op} takes [low, high].`);
    const [low, high] = value.map((v, i) => checkScalar(metricName, metric, v, `${param}.value.${i}`)) as number[];
    if (low! > high!) throw bad(`${param}.value`, `${op} takes [low, high] with low <= high.`);
    return { metric: metricName, op, value: [low, high] };
  }
  if (LIST.has(op)) {
    if (!Array.isArray(value) || value.length === 0) throw bad(`${param}.value`, `${op} takes a non-empty list.`);
    if (value.length > CONFIG_BOUNDS.listValues) throw tooMany(`${param}.value`, 'values in a list', CONFIG_BOUNDS.listValues);
    return { metric: metricName, op, value: value.map((v, i) => checkScalar(metricName, metric, v, `${param}.value.${i}`)) };
  }
  if (value === undefined) throw bad(`${param}.value`, `${op} needs a value.`);
  return { metric: metricName, op, value: checkScalar(metricName, metric, value, `${param}.value`) };
}

function normalizeParam(name: string, decl: ParamDecl, value: unknown): unknown {
  const param = `filters.params.${name}`;
  if (decl.type === 'enum') {
    if (typeof value !== 'string' || !decl.menu.includes(value)) throw bad(param, `${name} is one of: ${decl.menu.join(', ')}.`, decl.menu);
    return value;
  }
  if (decl.type === 'array_of_number') {
    if (!Array.isArray(value) || value.length === 0 || !value.every((n) => typeof n === 'number' && n >= decl.min && n <= decl.max)) {
      throw bad(param, `${name} is a non-empty list of numbers from ${decl.min} to ${decl.max}.`);
    }
    if (value.length > CONFIG_BOUNDS.listValues) throw tooMany(param, 'numbers', CONFIG_BOUNDS.listValues);
    return [...new Set(value as number[])].sort((a, b) => b - a);
  }
  const isNumber = typeof value === 'number' && Number.isFinite(value) && (decl.type === 'number' || Number.isInteger(value));
  if (!isNumber) throw bad(param, `${name} takes ${decl.type === 'integer' ? 'an integer' : 'a number'}.`);
  if (decl.menu && !decl.menu.includes(value as number)) throw bad(param, `${name} is one of: ${decl.menu.join(', ')}.`, decl.menu);
  if ((decl.min !== undefined && (value as number) < decl.min) || (decl.max !== undefined && (value as number) > decl.max)) {
    throw bad(param, `${name} ranges from ${decl.min ?? '-∞'} to ${decl.max ?? '∞'}.`);
  }
  return value;
}

function normalizeVenue(decl: EventTypeDecl, raw: unknown): Venue[] {
  const list = typeof raw === 'string' ? raw.split('|') : Array.isArray(raw) ? raw : undefined;
  if (!list || list.length === 0 || !list.every((v) => typeof v === 'string')) throw bad('filters.venue', 'venue is a venue or a list of venues.', decl.venues);
  const venues = [...new Set(list.map((v) => (v as string).trim().toLowerCase()))];
  const unknown = venues.filter((v) => !(decl.venues as readonly string[]).includes(v));
  if (unknown.length) throw bad('filters.venue', `${decl.type} covers the venues: ${decl.venues.join(', ')}.`, decl.venues);
  return venues as Venue[];
}

/** The stored form of a configuration, or a 400 naming what is declared. */
export function normalizeConfig(decl: EventTypeDecl, raw: unknown, watched: ReadonlySet<string>): StoredConfig {
  const input = raw ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) throw bad('filters', 'filters is an object.');
  const { conditions: rawConditions, params: rawParams, min_notional_usd: minNotional, venue, symbols, addresses, ...rest } = input as Record<string, unknown>;

  // Declared params may sit at the top level, under their names or the type's aliases.
  const topLevelParams: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    const name = decl.paramAliases?.[key] ?? key;
    if (!decl.params[name]) {
      const accepted = [...decl.scopeKeys, 'conditions', 'params', ...(decl.notionalMetric ? ['min_notional_usd'] : []), ...Object.keys(decl.params)];
      throw bad(`filters.${key}`, `Unknown filters member ${key}; ${decl.type} accepts: ${accepted.join(', ')}.`, accepted);
    }
    topLevelParams[name] = value;
  }

  const config: StoredConfig = { conditions: [], params: {} };
  const scopeRefused = (key: string) =>
    bad(`filters.${key}`, `${decl.type} does not take ${key}; its scope keys are: ${decl.scopeKeys.join(', ') || '(none)'}.`, decl.scopeKeys);
  if (venue !== undefined) {
    if (!decl.scopeKeys.includes('venue')) throw scopeRefused('venue');
    config.venue = normalizeVenue(decl, venue);
  }
  if (symbols !== undefined) {
    if (!decl.scopeKeys.includes('symbols')) throw scopeRefused('symbols');
    if (!Array.isArray(symbols) || !symbols.every((s) => typeof s === 'string' && s.trim() !== ''))
      throw bad('filters.symbols', 'symbols is a list of venue-native symbols.');
    if (symbols.length > CONFIG_BOUNDS.symbols) throw tooMany('filters.symbols', 'symbols per rule', CONFIG_BOUNDS.symbols);
    if (symbols.some((s) => (s as string).length > CONFIG_BOUNDS.symbolChars))
      throw bad('filters.symbols', `A symbol has at most ${CONFIG_BOUNDS.symbolChars} characters.`);
    config.symbols = [...new Set(symbols.map((s) => (s as string).trim()))];
  }
  if (addresses !== undefined) {
    if (!decl.scopeKeys.includes('addresses')) throw scopeRefused('addresses');
    if (Array.isArray(addresses) && addresses.length > CONFIG_BOUNDS.addresses)
      throw tooMany('filters.addresses', 'addresses per rule', CONFIG_BOUNDS.addresses);
    if (!Array.isArray(addresses) || !addresses.every((a) => typeof a === 'string' && ADDRESS.test(a.trim().toLowerCase())))
      throw bad('filters.addresses', 'addresses is a list of 0x addresses.');
    const list = [...new Set(addresses.map((a) => (a as string).trim().toLowerCase()))];
    const unwatched = list.filter((a) => !watched.has(a));
    if (unwatched.length) throw bad('filters.addresses', `Add these to your watched addresses first: ${unwatched.join(', ')}.`);
    config.addresses = list;
  }

  if (rawConditions !== undefined) {
    if (!Array.isArray(rawConditions)) throw bad('filters.conditions', 'conditions is a list.');
    if (rawConditions.length > MAX_CONDITIONS) throw bad('filters.conditions', `At most ${MAX_CONDITIONS} conditions per rule.`);
    config.conditions = rawConditions.map((c, i) => normalizeCondition(decl, c, i));
  }
  if (minNotional !== undefined) {
    if (!decl.notionalMetric) throw bad('filters.min_notional_usd', `${decl.type} has no notional metric, so min_notional_usd does not apply.`);
    if (typeof minNotional !== 'number' || !Number.isFinite(minNotional) || minNotional < 0)
      throw bad('filters.min_notional_usd', 'min_notional_usd is a number of USD, 0 or more.');
    config.conditions.push({ metric: decl.notionalMetric, op: 'greater_than_or_equal', value: minNotional });
  }
  if (config.conditions.length > MAX_CONDITIONS) throw bad('filters.conditions', `At most ${MAX_CONDITIONS} conditions per rule.`);
  if (decl.notionalMetric) {
    const lowerBounds = config.conditions
      .filter((c) => c.metric === decl.notionalMetric && (c.op === 'greater_than_or_equal' || c.op === 'greater_than'))
      .map((c) => c.value as number);
    if (lowerBounds.length) config.min_notional_usd = Math.min(...lowerBounds);
  }

  if (rawParams !== undefined && (rawParams === null || typeof rawParams !== 'object' || Array.isArray(rawParams)))
    throw bad('filters.params', 'params is an object.');
  const given = { ...(rawParams as Record<string, unknown> | undefined) };
  for (const [name, value] of Object.entries(topLevelParams)) {
    if (name in given && JSON.stringify(given[name]) !== JSON.stringify(value)) throw bad(`filters.${name}`, `${name} is given twice with different values.`);
    given[name] = value;
  }
  for (const name of Object.keys(given)) {
    if (!decl.params[name])
      throw bad(`filters.params.${name}`, `${decl.type} declares the params: ${Object.keys(decl.params).join(', ') || '(none)'}.`, Object.keys(decl.params));
  }
  for (const [name, paramDecl] of Object.entries(decl.params)) {
    config.params[name] = name in given ? normalizeParam(name, paramDecl, given[name]) : paramDecl.default;
  }
  return config;
}
