/**
 * Ingest's check of a normalized record, compiled once from the registry's valibot schemas into
 * straight-line JavaScript (one function per dataset, generated when this module loads): it accepts
 * exactly what `v.safeParse(NormalizedRecord, …)` plus ingest's family rule accept, and names the
 * top-level field valibot's first issue is about. valibot itself builds a dataset object per value
 * and an output copy of every record, which was half of ingest's time; it now runs only on the
 * lines this check refuses, to word the problem (parse.ts). Generated code rather than a tree of
 * closures: one call per record instead of one per field and rule, 2.4x faster on an hour of the
 * demo market (ARCHITECTURE, ingest speed).
 *
 * Each schema and action the registry uses has its rule here, taken from valibot's own (same
 * regexes, Number.isInteger, `in` for present keys, own keys for unknown ones); a schema of a kind
 * not handled throws when this module loads, so a new dataset cannot slip past unchecked. Only
 * the schemas' shapes reach the generated text; their values (regexes, picklists, literals,
 * `check` functions) are passed in as constants, never printed into it.
 * test/unit/archive/record-check.test.ts holds the two to the same answers on generated records.
 */
import { DATASETS, INGESTED_DATASETS, familiesOf, type IngestedDataset } from '#schemas/datasets.ts';

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

/** The schema under its pipes, and the pipes' validations in the order valibot runs them. */
function unpipe(schema: Node): { base: Node; actions: Node[] } {
  if (!schema.pipe) return { base: schema, actions: [] };
  const inner = unpipe(schema.pipe[0]!);
  const actions = schema.pipe.slice(1).filter((a) => a.kind !== 'metadata');
  const transformation = actions.find((a) => a.kind !== 'validation');
  if (transformation) throw new Error(`record-check: ${transformation.type} changes the record, which ingest stores as written`);
  return { base: inner.base, actions: [...inner.actions, ...actions] };
}

/** The generated source under way: constants referenced as `k[i]`, helper functions as `f<i>`. */
class Program {
  readonly constants: unknown[] = [];
  readonly functions: string[] = [];
  constant(value: unknown): string {
    return `k[${this.constants.push(value) - 1}]`;
  }
  /** A helper function of one argument `x` with these statements; its name. */
  helper(statements: string): string {
    const name = `f${this.functions.length}`;
    this.functions.push(`function ${name}(x) {\n${statements}\n}`);
    return name;
  }
  /** A helper function of one argument `x` returning `expression`; its name. */
  predicate(expression: string): string {
    return this.helper(`return ${expression};`);
  }
}

function validation(program: Program, action: Node, x: string): string {
  const requirement = action.type === 'integer' ? '' : program.constant(action.requirement);
  switch (action.type) {
    case 'regex':
      return `${requirement}.test(${x})`;
    case 'integer':
      return `Number.isInteger(${x})`;
    case 'min_value':
      return `${x} >= ${requirement}`;
    case 'max_value':
      return `${x} <= ${requirement}`;
    case 'min_length':
      return `${x}.length >= ${requirement}`;
    case 'max_length':
      return `${x}.length <= ${requirement}`;
    case 'check':
      return `${requirement}(${x})`;
    default:
      throw new Error(`record-check: no rule for the ${action.type} action`);
  }
}

/**
 * Statements checking an object's entries one by one in schema order, then (a strict object's)
 * unknown keys: each refused entry or unknown key runs `refuse(<the key's expression>)`.
 */
function entriesStatements(program: Program, entries: Record<string, Node>, input: string, refuse: (key: string) => string, strict = true): string {
  const statements = Object.entries(entries).map(([key, schema]) => {
    const name = JSON.stringify(key);
    const missing = schema.type === 'optional' ? '' : ` else ${refuse(name)}`;
    return `if (${name} in ${input}) { const v = ${input}[${name}]; if (!(${expression(program, schema, 'v')})) ${refuse(name)} }${missing}`;
  });
  if (!strict) return statements.join('\n');
  const known = program.constant(entries);
  statements.push(`for (const key in ${input}) if (!Object.prototype.hasOwnProperty.call(${known}, key)) ${refuse('key')}`);
  return statements.join('\n');
}

/** An expression over the identifier `x` that is true exactly when valibot accepts its value. */
function expression(program: Program, schema: Node, x: string): string {
  const { base, actions } = unpipe(schema);
  const checks: string[] = [];
  switch (base.type) {
    case 'string':
      checks.push(`typeof ${x} === 'string'`);
      break;
    case 'number':
      checks.push(`typeof ${x} === 'number' && ${x} === ${x}`);
      break; // NaN is not equal to itself
    case 'boolean':
      checks.push(`typeof ${x} === 'boolean'`);
      break;
    case 'literal':
      checks.push(`${x} === ${program.constant(base.literal)}`);
      break;
    case 'picklist':
      checks.push(`${program.constant(base.options)}.includes(${x})`);
      break;
    case 'optional':
    case 'nullable': {
      if (base.default !== undefined) throw new Error(`record-check: a default on ${base.type} changes the record`);
      const empty = base.type === 'optional' ? 'undefined' : 'null';
      checks.push(`${program.predicate(`x === ${empty} || (${expression(program, base.wrapped!, 'x')})`)}(${x})`);
      break;
    }
    case 'union':
      checks.push(`${program.predicate((base.options as Node[]).map((option) => `(${expression(program, option, 'x')})`).join(' || '))}(${x})`);
      break;
    case 'array':
      checks.push(`Array.isArray(${x}) && ${x}.every(${program.predicate(expression(program, base.item!, 'x'))})`);
      break;
    case 'tuple': // valibot's tuple ignores items past its own
      checks.push(
        `${program.predicate(['Array.isArray(x)', ...base.items!.map((item, i) => `${program.predicate(expression(program, item, 'x'))}(x[${i}])`)].join(' && '))}(${x})`,
      );
      break;
    case 'object':
    case 'strict_object': {
      const entries = entriesStatements(program, base.entries!, 'x', () => 'return false;', base.type === 'strict_object');
      checks.push(`${program.helper(`if (!x || typeof x !== 'object') return false;\n${entries}\nreturn true;`)}(${x})`);
      break;
    }
    default:
      throw new Error(`record-check: no rule for the ${base.type} schema`);
  }
  for (const action of actions) checks.push(validation(program, action, x));
  return checks.join(' && ');
}

/**
 * A predicate true exactly when valibot accepts a value (the node's line schemas, node-streamed.ts:
 * a good line skips valibot, which then only words a refusal). Loose objects take unknown keys as
 * valibot's `object` does; what valibot's output leaves out of them is never read.
 */
export function compiledCheck(schema: unknown): (value: unknown) => boolean {
  const program = new Program();
  const body = `return ${expression(program, schema as Node, 'x')};`;
  return new Function('k', `${program.functions.join('\n')}\nreturn function check(x) {\n${body}\n};`)(program.constants) as (value: unknown) => boolean;
}

type RecordCheck = (record: Record<string, unknown>) => string | undefined;

/**
 * One dataset's record check: the field valibot's first issue names ('' for a record-level check),
 * or undefined for a good record. Same order as valibot: entries in schema order, unknown keys,
 * then the record's checks (valibot runs them only on a record whose fields passed), then ingest's
 * rule that the family has the dataset.
 */
function recordCheck(dataset: IngestedDataset): RecordCheck {
  const { base, actions } = unpipe(DATASETS[dataset].record);
  if (base.type !== 'strict_object') throw new Error(`record-check: ${dataset}'s record is not a strict object`);
  const program = new Program();
  const body = [
    entriesStatements(program, base.entries!, 'r', (key) => `return ${key};`),
    ...actions.map((action) => `if (!(${validation(program, action, 'r')})) return '';`),
    `return ${program.constant(familiesOf(dataset))}.includes(r.family) ? undefined : 'family';`,
  ].join('\n');
  const source = `${program.functions.join('\n')}\nreturn function check_${dataset}(r) {\n${body}\n};`;
  return new Function('k', source)(program.constants) as RecordCheck;
}

const CHECKS = new Map<unknown, RecordCheck>(INGESTED_DATASETS.map((d) => [d, recordCheck(d)]));

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
