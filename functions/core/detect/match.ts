/**
 * Whether an occurrence matches a rule: the rule's scope keys, the event's cost floor and the
 * rule's conditions, all evaluated on the occurrence's declared metrics. Pure, and the one place
 * this is decided: live delivery, dry-run and estimate all call it, so they cannot disagree.
 */
import type { EventTypeDecl } from '../events/declare.ts';
import type { Candidate, MetricValue } from '../events/kit/candidate.ts';
import type { Condition, StoredConfig } from '../webhooks/filters.ts';

export function passesFloor(decl: EventTypeDecl, config: Pick<StoredConfig, 'min_notional_usd'>, candidate: Candidate): boolean {
  if (!decl.costFloor) return true;
  const value = candidate.metrics[decl.costFloor.metric];
  if (typeof value !== 'number' || value < decl.costFloor.min) return false;
  if (decl.defaultMinNotionalUsd !== undefined && config.min_notional_usd === undefined) return value >= decl.defaultMinNotionalUsd;
  return true;
}

function compare(a: number | string, b: number | string): number {
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/** One condition on one value. A null value (a relative metric without a usable denominator) never holds, except for is_empty. */
export function holds(condition: Condition, value: MetricValue | undefined): boolean {
  const empty = value === null || value === undefined || value === '';
  if (condition.op === 'is_empty') return empty;
  if (condition.op === 'is_not_empty') return !empty;
  if (value === null || value === undefined) return false;
  const target = condition.value;
  switch (condition.op) {
    case 'equal':
      return typeof value === 'string' && typeof target === 'string' && isTime(target) ? Date.parse(value) === Date.parse(target) : value === target;
    case 'not_equal':
      return value !== target;
    case 'greater_than':
      return compare(value as number, target as number) > 0;
    case 'greater_than_or_equal':
      return compare(value as number, target as number) >= 0;
    case 'less_than':
      return compare(value as number, target as number) < 0;
    case 'less_than_or_equal':
      return compare(value as number, target as number) <= 0;
    case 'between': {
      const [low, high] = target as [number, number];
      return (value as number) >= low && (value as number) <= high;
    }
    case 'not_between': {
      const [low, high] = target as [number, number];
      return (value as number) < low || (value as number) > high;
    }
    case 'in':
      return (target as unknown[]).includes(value);
    case 'not_in':
      return !(target as unknown[]).includes(value);
    case 'contains':
      return String(value).includes(String(target));
    case 'not_contains':
      return !String(value).includes(String(target));
    case 'starts_with':
      return String(value).startsWith(String(target));
    case 'ends_with':
      return String(value).endsWith(String(target));
    case 'before':
      return Date.parse(String(value)) < Date.parse(String(target));
    case 'after':
      return Date.parse(String(value)) > Date.parse(String(target));
    default:
      return false;
  }
}

const isTime = (text: string) => /^\d{4}-\d{2}-\d{2}T/.test(text);

/**
 * Whether `candidate` is delivered to a rule with configuration `config`. For `account.*` events
 * `watched` is the rule's account's watched list now: the address must be on it (and on the rule's
 * `addresses` when it names some).
 */
export function matches(decl: EventTypeDecl, config: StoredConfig, candidate: Candidate, watched?: ReadonlySet<string>): boolean {
  if (candidate.type !== decl.type) return false;
  if (candidate.params && Object.entries(candidate.params).some(([name, value]) => config.params[name] !== value)) return false;
  if (decl.venues.length > 0 && !decl.venues.includes(candidate.venue)) return false;
  if (config.venue && !config.venue.includes(candidate.venue)) return false;
  if (candidate.scope === 'per_market' && !config.symbols) return false;
  if (candidate.scope === 'collapsed' && config.symbols) return false;
  if (config.symbols && (candidate.symbol === null || !config.symbols.includes(candidate.symbol))) return false;
  if (decl.scope === 'addresses') {
    if (candidate.address === null || !watched?.has(candidate.address)) return false;
    if (config.addresses && !config.addresses.includes(candidate.address)) return false;
  }
  if (!passesFloor(decl, config, candidate)) return false;
  if (decl.listedBy) {
    const listed = config.params[decl.listedBy.param];
    if (!Array.isArray(listed) || !listed.includes(candidate.metrics[decl.listedBy.metric])) return false;
  }
  return config.conditions.every((condition) => holds(condition, candidate.metrics[condition.metric]));
}
