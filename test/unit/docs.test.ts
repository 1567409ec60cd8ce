/**
 * The documents stay short and cannot go stale silently: ARCHITECTURE.md and README.md keep their
 * length budgets, every repository path they (and the guides in docs/) write in backticks exists,
 * and every `npm run <script>` they name is a script of package.json.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repositoryPaths, npmScripts } from '../helpers/doc-references.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCUMENTS = [
  'ARCHITECTURE.md',
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const lineCount = (text: string) => text.trimEnd().split('\n').length;

describe('the documents', () => {
  it('keep ARCHITECTURE.md under 400 lines and README.md under 300', () => {
    expect(lineCount(read('ARCHITECTURE.md'))).toBeLessThan(400);
    expect(lineCount(read('README.md'))).toBeLessThan(300);
  });

  it.each(DOCUMENTS)('%s names only repository paths that exist', (document) => {
    // Act
    const missing = repositoryPaths(read(document)).filter(({ candidates }) => !candidates.some((path) => existsSync(join(ROOT, path))));
    // Assess
    expect(missing.map(({ written }) => written)).toEqual([]);
  });

  it.each(DOCUMENTS)('%s names only npm scripts package.json has', (document) => {
    // Prepare
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    // Act, Assess
    expect(npmScripts(read(document)).filter((script) => !(script in scripts))).toEqual([]);
  });
});

describe('repositoryPaths', () => {
  it("takes backticked paths under the repository's folders, resolves core/... forms under functions/, and skips the rest", () => {
    // Prepare
    const text = [
      'See `functions/core/events/registry.ts`, `core/detect/batch-run.ts`, `shared/http.ts` and `test/unit/`.',
      'Not paths: `landing/<format>/…`, `/v1/perpx/trades/{symbol}`, `s3://hl-mainnet-node-data`, `mcp:market.read`,',
      '`node_fills_by_block/hourly/20250801/0`, `functions/core/events/<type>.ts`, `x-request-id`, `routes.ts`.',
      '```',
      'functions/http/<group>.ts -> core (in a fenced block, not backticked)',
      '```',
    ].join('\n');
    // Act
    const found = repositoryPaths(text);
    // Assess
    expect(found).toEqual([
      { written: 'functions/core/events/registry.ts', candidates: ['functions/core/events/registry.ts'] },
      { written: 'core/detect/batch-run.ts', candidates: ['functions/core/detect/batch-run.ts'] },
      { written: 'shared/http.ts', candidates: ['functions/shared/http.ts'] },
      { written: 'test/unit/', candidates: ['test/unit/'] },
    ]);
  });

  it('checks any backticked path with a source extension, wherever it starts', () => {
    expect(repositoryPaths('`demo/upstream.ts` and `docs/adding-a-route.md`')).toEqual([
      { written: 'demo/upstream.ts', candidates: ['demo/upstream.ts', 'functions/demo/upstream.ts'] },
      { written: 'docs/adding-a-route.md', candidates: ['docs/adding-a-route.md'] },
    ]);
  });
});

describe('npmScripts', () => {
  it('finds npm run scripts, with or without --silent, and npm start and npm test', () => {
    expect(npmScripts('`npm ci && npm start`, npm test, `npm run bench -- --only quality`, npm run --silent mcp, npm run breadth:backfill').sort()).toEqual([
      'bench',
      'breadth:backfill',
      'mcp',
      'start',
      'test',
    ]);
  });
});
