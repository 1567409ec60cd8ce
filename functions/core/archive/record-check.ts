/**
 * Ingest's check of a normalized record, compiled once from the registry's valibot schemas into
 * plain predicates: it accepts exactly what `v.safeParse(NormalizedRecord, …)` plus ingest's
 * family rule accept, and names the top-level field valibot's first issue is about. valibot itself
 * builds a dataset object per value and an output copy of every record, which was half of ingest's
 * time; it now runs only on the lines this check refuses, to word the problem (parse.ts).
 *
 * Each schema and action the registry uses has its rule here, taken from valibot's own (same
 * regexes, Number.isInteger, `in` for present keys, own keys for unknown ones); a schema of a kind
 * not handled throws when this module loads, so a new dataset cannot slip past unchecked.
 * test/unit/archive/record-check.test.ts holds the two to the same answers on generated records.
 */
import { DATASETS, INGESTED_DATASETS, familiesOf, type IngestedDataset } from '../../../schemas/datasets.ts';

/** The parts of valibot's schema and action objects the compiler reads. */
interface Node {
  kind: string;
  type: string;
  pipe?: readonly Node[];
  wrapped?: Node;
  default?: unknown;
  entries?: Record<string, Node>;
  options?: readonly unknown[];
  literal?: unknown;
  item?: Node;
  items?: readonly Node[];
  requirement?: unknown;
}

type Accept = (value: unknown) => boolean;

/** The schema under its pipes, and the pipes' validations in the order valibot runs them. */
function unpipe(schema: Node): { base: Node; actions: Node[] } {
  if (!schema.pipe) return { base: schema, actions: [] };
  const inner = unpipe(schema.pipe[0]!);
  const actions = schema.pipe.slice(1).filter((a) => a.kind !== 'metadata');
  const transformation = actions.find((a) => a.kind !== 'validation');
  if (transformation) throw new Error(`record-check: ${transformation.type} changes the record, which ingest stores as written`);
  return { base: inner.base, actions: [...inner.actions, ...actions] };
}

function validation(action: Node): Accept {
  const requirement = action.requirement;
  switch (action.type) {
    case 'regex': return (value) => (requirement as RegExp).test(value as string);
    case 'integer': return (value) => Number.isInteger(value);
    case 'min_value': return (value) => (value as number) >= (requirement as number);
    case 'max_value': return (value) => (value as number) <= (requirement as number);
    case 'min_length': return (value) => (value as { length: number }).length >= (requirement as number);
    case 'max_length': return (value) => (value as { length: number }).length <= (requirement as number);
    case 'check': return requirement as Accept;
    default: throw new Error(`record-check: no rule for the ${action.type} action`);
  }
}

const all = (accepts: readonly Accept[]): Accept => {
  if (accepts.length === 1) return accepts[0]!;
  return (value) => {
    for (const accept of accepts) if (!accept(value)) return false;
    return true;
  };
};

/** What a schema's entries accept, one by one in schema order: the first entry refused, an unknown key, or undefined. */
function entriesCheck(entries: Record<string, Node>): (input: Record<string, unknown>) => string | undefined {
  const checks = Object.entries(entries).map(([key, schema]) => ({ key, optional: schema.type === 'optional', accept: compile(schema) }));
  return (input) => {
    for (const { key, optional, accept } of checks) {
      if (key in input) {
        if (!accept(input[key])) return key;
      } else if (!optional) return key;
    }
    for (const key in input) if (!Object.prototype.hasOwnProperty.call(entries, key)) return key;
    return undefined;
  };
}

/** A predicate that is true exactly when valibot accepts the value. */
export function compile(schema: Node): Accept {
  const { base, actions } = unpipe(schema);
  const validations = actions.map(validation);
  const typed = (is: Accept): Accept => all([is, ...validations]);
  switch (base.type) {
    case 'string': return typed((value) => typeof value === 'string');
    case 'number': return typed((value) => typeof value === 'number' && !Number.isNaN(value));
    case 'boolean': return typed((value) => typeof value === 'boolean');
    case 'literal': return typed((value) => value === base.literal);
    case 'picklist': return typed((value) => base.options!.includes(value));
    case 'optional':
    case 'nullable': {
      if (base.default !== undefined) throw new Error(`record-check: a default on ${base.type} changes the record`);
      const inner = compile(base.wrapped!);
      const empty = base.type === 'optional' ? undefined : null;
      return typed((value) => value === empty || inner(value));
    }
    case 'union': {
      const options = (base.options as Node[]).map(compile);
      return typed((value) => options.some((accept) => accept(value)));
    }
    case 'array': {
      const item = compile(base.item!);
      return typed((value) => Array.isArray(value) && value.every((element) => item(element)));
    }
    case 'tuple': { // valibot's tuple ignores items past its own
      const items = base.items!.map(compile);
      return typed((value) => Array.isArray(value) && items.every((item, i) => item(value[i])));
    }
    case 'strict_object': {
      const entries = entriesCheck(base.entries!);
      return typed((value) => Boolean(value) && typeof value === 'object' && entries(value as Record<string, unknown>) === undefined);
    }
    default:
      throw new Error(`record-check: no rule for the ${base.type} schema`);
  }
}

/**
 * One dataset's record check: the field valibot's first issue names ('' for a record-level check),
 * or undefined for a good record. Same order as valibot: entries in schema order, unknown keys,
 * then the record's checks (valibot runs them only on a record whose fields passed), then ingest's
 * rule that the family has the dataset.
 */
function recordCheck(dataset: IngestedDataset): (record: Record<string, unknown>) => string | undefined {
  const { base, actions } = unpipe(DATASETS[dataset].record as unknown as Node);
  if (base.type !== 'strict_object') throw new Error(`record-check: ${dataset}'s record is not a strict object`);
  const entries = entriesCheck(base.entries!);
  const checks = actions.map(validation);
  const families: readonly unknown[] = familiesOf(dataset);
  return (record) => {
    const field = entries(record);
    if (field !== undefined) return field;
    for (const check of checks) if (!check(record)) return '';
    return families.includes(record.family) ? undefined : 'family';
  };
}

const CHECKS = new Map<unknown, (record: Record<string, unknown>) => string | undefined>(INGESTED_DATASETS.map((d) => [d, recordCheck(d)]));

/**
 * The top-level field of a parsed JSON line that ingest refuses it for ('' when valibot names no
 * field: not an object, or a record-level check), or undefined when it is a good record.
 */
export function refusedField(json: unknown): string | undefined {
  if (!json || typeof json !== 'object') return '';
  const record = json as Record<string, unknown>;
  const check = 'dataset' in record ? CHECKS.get(record.dataset) : undefined;
  return check ? check(record) : 'dataset';
}
