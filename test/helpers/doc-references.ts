/**
 * What the documents refer to, read from their text: repository paths written in backticks and the
 * npm scripts they tell a reader to run. Pure, so the rules can be tested on a few lines.
 */

/** Top-level folders of the repository: a backticked path starting with one is taken as written. */
const ROOTS = ['bin', 'lib', 'functions', 'schemas', 'test', 'bench', 'docs', 'clients', 'mcp'];
/** Folders of functions/ that the documents name in short (`core/detect/match.ts`). */
const FUNCTION_FOLDERS = ['core', 'shared', 'http', 'queues', 'schedules', 'workflows', 'local', 'ports', 'adapters'];
/** A backticked token with one of these endings is a file however it starts, so it must resolve. */
const FILE_ENDING = /\.(ts|mts|mjs|md|json)$/;
/** Placeholders, patterns, URLs and prose: `<type>`, `{symbol}`, `…`, `*`, `s3://`, spaces. */
const NOT_A_PATH = /[\s<>{}*…$:#?=|]/;

export interface PathReference {
  /** As the document writes it. */
  written: string;
  /** Where it may be in the repository (relative to the root); it exists if any of them does. */
  candidates: string[];
}

/** Inline code spans outside fenced blocks. */
function codeSpans(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
}

export function repositoryPaths(text: string): PathReference[] {
  const found: PathReference[] = [];
  for (const span of codeSpans(text)) {
    if (!span.includes('/') || NOT_A_PATH.test(span) || span.startsWith('/') || span.startsWith('.')) continue;
    const first = span.split('/')[0]!;
    if (ROOTS.includes(first)) found.push({ written: span, candidates: [span] });
    else if (FUNCTION_FOLDERS.includes(first)) found.push({ written: span, candidates: [`functions/${span}`] });
    else if (FILE_ENDING.test(span)) found.push({ written: span, candidates: [span, `functions/${span}`] });
  }
  return found;
}

/** Scripts named as `npm run <script>` (`--silent` allowed), and `npm start` / `npm test`. */
export function npmScripts(text: string): string[] {
  const scripts = new Set<string>();
  for (const m of text.matchAll(/\bnpm\s+(?:run(?:-script)?\s+(?:--silent\s+)?([\w:.-]+)|(start|test)\b)/g)) scripts.add((m[1] ?? m[2])!);
  return [...scripts];
}
