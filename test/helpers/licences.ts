/**
 * Package licences as the licence test reads them: the declared licence of a package (SPDX
 * expression, or the legacy `license` object and `licenses` array) and whether an SPDX expression
 * is allowed by a set of licence ids. Pure, so a test can run it on a few expressions as well as on
 * every package of the lockfile.
 */

/** An SPDX expression's tree: a licence id (with its `WITH` exception, if any), AND or OR. */
type Expression = { kind: 'id'; id: string } | { kind: 'and' | 'or'; terms: Expression[] };

/**
 * The tree of an SPDX licence expression (`MIT`, `(MIT OR Apache-2.0)`, `MIT AND Zlib`,
 * `GPL-2.0-only WITH Classpath-exception-2.0`); AND binds tighter than OR. Throws on anything
 * else (`SEE LICENSE IN …`, an empty string, unbalanced parentheses).
 */
export function parseSpdx(expression: string): Expression {
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let at = 0;
  const peek = () => tokens[at]?.toUpperCase();
  const fail = (what: string): never => {
    throw new Error(`${what} in SPDX expression ${JSON.stringify(expression)}`);
  };
  const list = (kind: 'and' | 'or', operator: string, next: () => Expression): Expression => {
    const terms = [next()];
    while (peek() === operator) {
      at += 1;
      terms.push(next());
    }
    return terms.length === 1 ? terms[0]! : { kind, terms };
  };
  const licence = (): Expression => {
    const token = tokens[at];
    if (token === '(') {
      at += 1;
      const inner = or();
      if (tokens[at] !== ')') fail('a missing )');
      at += 1;
      return inner;
    }
    if (token === undefined || token === ')' || ['AND', 'OR', 'WITH'].includes(token.toUpperCase())) fail('a missing licence id');
    at += 1;
    // `Apache-2.0+` (this version or later) is allowed when the version named is.
    const id = token!.replace(/\+$/, '');
    if (peek() !== 'WITH') return { kind: 'id', id };
    at += 1;
    const exception = tokens[at];
    if (exception === undefined || exception === '(' || exception === ')') fail('a missing licence exception');
    at += 1;
    return { kind: 'id', id: `${id} WITH ${exception}` };
  };
  const and = () => list('and', 'AND', licence);
  const or = (): Expression => list('or', 'OR', and);
  const tree = or();
  if (at !== tokens.length) fail(`an unexpected ${JSON.stringify(tokens[at])}`);
  return tree;
}

/**
 * Whether an SPDX expression is allowed: an id when it is in `allowed`, ignoring case as SPDX
 * matches ids (an id with a `WITH` exception only when that whole phrase is), OR when any
 * alternative is, AND when every term is. An expression that does not parse is refused.
 */
export function spdxAllowed(expression: string, allowed: ReadonlySet<string>): boolean {
  const ids = new Set([...allowed].map((id) => id.toLowerCase()));
  const allows = (node: Expression): boolean =>
    node.kind === 'id' ? ids.has(node.id.toLowerCase()) : node.kind === 'or' ? node.terms.some(allows) : node.terms.every(allows);
  try {
    return allows(parseSpdx(expression));
  } catch {
    return false;
  }
}

/** The licence fields a lockfile entry or a package.json may carry. */
export interface LicenceFields {
  license?: unknown;
  licenses?: unknown;
}

/**
 * A package's declared licence as one SPDX expression, or undefined when it declares none: the
 * `license` string; the legacy `license: { type }` object; the legacy `licenses` array of
 * `{ type }` objects or strings, whose entries are alternatives (the package could be taken under
 * any of them), so they join with OR.
 */
export function declaredLicence(fields: LicenceFields): string | undefined {
  const typeOf = (value: unknown): string | undefined =>
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
        ? (value as { type: string }).type
        : undefined;
  const single = typeOf(fields.license);
  if (single !== undefined && single.trim() !== '') return single.trim();
  if (!Array.isArray(fields.licenses)) return undefined;
  const types = fields.licenses.map(typeOf);
  if (types.length === 0 || types.some((type) => type === undefined || type.trim() === '')) return undefined;
  return types.length === 1 ? types[0]! : types.map((type) => `(${type})`).join(' OR ');
}

/** The package name of a lockfile path: `node_modules/a/node_modules/@b/c` is `@b/c`. */
export const packageNameOf = (lockPath: string): string => lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
