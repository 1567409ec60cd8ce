/**
 * The layering rules of ARCHITECTURE.md as a check over source text: static imports and re-exports
 * (`import … from`, `export … from`, bare `import '…'`) and dynamic `import('…')`, resolved to files
 * of the given set. Pure, so a test can run it on a few in-memory files as well as on the tree.
 */
import { posix } from 'node:path';

/** Repository-relative path (forward slashes) to source text. */
export type SourceFiles = ReadonlyMap<string, string>;

export interface LayeringRules {
  /** Files that export a Lambda handler; each must stay a thin shell. */
  entryFiles: readonly string[];
  entryMaxLines: number;
  /** The files under functions/ that build adapters and AWS SDK clients and hand them out as ports. */
  compositionRoots: readonly string[];
  /** The registered event types: the service names them only in their own modules (functions/core/events/). */
  eventTypes: readonly string[];
  /** A core module past this many lines holds more than one idea: split it along them. */
  coreMaxLines: number;
  /** A route group's contract file (functions/routes/<group>.ts). */
  routeGroupMaxLines: number;
  /** package.json's `imports`: `#core/*` -> `./functions/core/*`, resolved like relative specifiers. */
  subpathImports?: Readonly<Record<string, string>>;
}

const CORE = 'functions/core/';
const EVENTS = 'functions/core/events/';
/** Where an event type's name may not be written out: the service's code outside its event's module. */
const SERVICE_SOURCE = ['functions/', 'schemas/'];
/** Packages that tie code to a runtime: AWS, Lambda middleware, the native DuckDB module. */
const CORE_FORBIDDEN_PACKAGES = ['@aws-sdk/', '@aws-lambda-powertools/', '@duckdb/', '@middy/'];
const CORE_FORBIDDEN_FILES = ['functions/adapters/', 'functions/shared/', 'functions/local/', 'functions/routes.ts', 'functions/routes/'];
const PROJECT_SOURCE = ['functions/', 'schemas/', 'lib/', 'bin/'];
/** Besides the composition roots, these build their own adapters: the adapters themselves and the local cloud. */
const WIRING = ['functions/adapters/', 'functions/local/'];
/** DynamoDB item operations: the table layouts belong to the adapters. */
const ITEM_COMMAND = /\bnew (Put|Get|Delete|Update|Query|Scan|BatchWrite|BatchGet)Command\b/;
/** Code that builds AWS SDK clients without tracing them: the local cloud, which never runs in Lambda. */
const UNTRACED = ['functions/local/'];
/** Casts that turn the compiler's checks off: core types its data instead (generics, guards, a parse where data enters). */
const CORE_CAST = /\bas\s+unknown\s+as\b|\bas\s+never\b/g;

// Block comments (their line breaks kept, so lines still count), and line comments that start a
// line or follow whitespace (so `https://` survives).
const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, '')).replace(/(^|\s)\/\/.*$/gm, '$1');

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** The local names of the client classes (`…Client`) a file imports from AWS SDK packages. */
function sdkClientImports(code: string): Set<string> {
  const names = new Set<string>();
  for (const [, list] of code.matchAll(/\bimport\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"]@aws-sdk\/[^'"]+['"]/g)) {
    for (const part of list!.split(',')) {
      const [imported, local = imported] = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .map((name) => name.trim());
      if (imported && /Client$/.test(imported)) names.add(local!);
    }
  }
  return names;
}

/** Each `new <SDK client>(` not written directly inside `traced(` (shared/client-tracing.ts), with its line. */
function untracedClients(code: string): { client: string; line: number }[] {
  const clients = sdkClientImports(code);
  return [...code.matchAll(/\bnew\s+([A-Za-z0-9_$]+)\s*\(/g)]
    .filter((m) => clients.has(m[1]!) && !/\btraced\(\s*$/.test(code.slice(0, m.index)))
    .map((m) => ({ client: m[1]!, line: lineAt(code, m.index) }));
}

export function importSpecifiers(text: string): string[] {
  const code = stripComments(text);
  const patterns = [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, /^\s*import\s*['"]([^'"]+)['"]/gm];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!));
}

/** The file a relative or subpath (`#core/...`) specifier names, or undefined for a package (or a file outside the set). */
function resolve(files: SourceFiles, from: string, specifier: string, subpaths: Readonly<Record<string, string>> = {}): string | undefined {
  if (specifier.startsWith('#')) {
    const pattern = Object.keys(subpaths).find((p) => specifier.startsWith(p.replace(/\*$/, '')));
    if (pattern === undefined) return undefined;
    specifier = posix.relative(posix.dirname(from), posix.normalize(subpaths[pattern]!.replace('*', specifier.slice(pattern.length - 1))));
    if (!specifier.startsWith('.')) specifier = `./${specifier}`;
  }
  if (!specifier.startsWith('.')) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  return [target, `${target}.ts`, `${target}/index.ts`].find((candidate) => files.has(candidate));
}

const under = (file: string, prefixes: readonly string[]) => prefixes.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

export function layeringViolations(files: SourceFiles, rules: LayeringRules): string[] {
  const violations: string[] = [];
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets: string[] = [];
    for (const specifier of importSpecifiers(text)) {
      const target = resolve(files, file, specifier, rules.subpathImports);
      if (target) targets.push(target);
      if (file.startsWith(CORE)) {
        if (CORE_FORBIDDEN_PACKAGES.some((p) => specifier.startsWith(p))) violations.push(`${file}: core imports ${specifier}`);
        if (target && under(target, CORE_FORBIDDEN_FILES)) violations.push(`${file}: core imports ${target}`);
      }
      if (file.startsWith('schemas/') && target?.startsWith(CORE)) violations.push(`${file}: schemas import ${target}`);
      if (file.startsWith('functions/') && !under(file, [CORE, ...WIRING, ...rules.compositionRoots])) {
        if (specifier.startsWith('@aws-sdk/') || target?.startsWith('functions/adapters/'))
          violations.push(`${file}: imports ${target ?? specifier} outside the composition root`);
      }
      if (file.startsWith('bench/') && (target?.startsWith('test/') || specifier.includes('/test/'))) violations.push(`${file}: bench imports ${specifier}`);
    }
    const code = stripComments(text);
    if (file.startsWith(CORE) && /\bprocess\.env\b/.test(code)) violations.push(`${file}: core reads process.env`);
    const lines = text.trimEnd().split('\n').length;
    if (file.startsWith(CORE) && lines > rules.coreMaxLines) violations.push(`${file}: core module has ${lines} lines (at most ${rules.coreMaxLines})`);
    if (file.startsWith('functions/routes/') && lines > rules.routeGroupMaxLines)
      violations.push(`${file}: route group contract has ${lines} lines (at most ${rules.routeGroupMaxLines})`);
    if (file.startsWith(CORE)) {
      for (const m of code.matchAll(CORE_CAST)) violations.push(`${file}:${lineAt(code, m.index)}: core casts with '${m[0].replace(/\s+/g, ' ')}'`);
    }
    if (file.startsWith('functions/') && !under(file, UNTRACED)) {
      for (const { client, line } of untracedClients(code))
        violations.push(`${file}:${line}: builds ${client} without passing it through traced (shared/client-tracing.ts)`);
    }
    if (under(file, SERVICE_SOURCE) && !file.startsWith(EVENTS)) {
      for (const [, name] of code.matchAll(/['"`]([a-z0-9_]+(?:\.[a-z0-9_]+)+)['"`]/g)) {
        if (rules.eventTypes.includes(name!)) violations.push(`${file}: names the event type ${name} outside core/events/`);
      }
    }
    if (under(file, ['functions/', 'bin/']) && !file.startsWith('functions/adapters/') && ITEM_COMMAND.test(code)) {
      violations.push(`${file}: reads or writes DynamoDB items outside an adapter`);
    }
    if (under(file, PROJECT_SOURCE))
      graph.set(
        file,
        targets.filter((t) => under(t, PROJECT_SOURCE)),
      );
  }
  for (const entry of rules.entryFiles) {
    const lines = files.get(entry)?.trimEnd().split('\n').length;
    if (lines === undefined) violations.push(`${entry}: entry file not found`);
    else if (lines > rules.entryMaxLines) violations.push(`${entry}: entry file has ${lines} lines (at most ${rules.entryMaxLines})`);
  }
  for (const cycle of importCycles(graph)) violations.push(`import cycle: ${cycle.join(' -> ')}`);
  for (const cycle of importCycles(folderGraph(graph))) violations.push(`core folder cycle: ${cycle.join(' -> ')}`);
  return violations;
}

/** The core's folders (functions/core/<folder>/…) and which others each imports. */
function folderGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folderOf = (file: string) => (file.startsWith(CORE) && file.slice(CORE.length).includes('/') ? file.slice(CORE.length).split('/')[0] : undefined);
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (!from) continue;
    const edges = folders.get(from) ?? new Set<string>();
    for (const to of targets.map(folderOf)) if (to && to !== from) edges.add(to);
    folders.set(from, edges);
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges]]));
}

/** One cycle per strongly connected component (Tarjan), walked from its first file back to it. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)?.includes(file)) components.push(component);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) => cycleThrough(graph, new Set(component), component.sort()[0]!));
}

/** A shortest path from `start` back to itself inside one component (breadth-first). */
function cycleThrough(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return [start];
}
