import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '#functions/resources.ts';
import { importSpecifiers, layeringViolations, type SourceFiles } from '../helpers/layering.ts';
import { EVENT_TYPES } from '#core/events/registry.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY_MAX_LINES = 80;
const CORE_MAX_LINES = 300;
/** Subpath imports (`#core/*`), as package.json maps them. */
const SUBPATH_IMPORTS: Record<string, string> = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).imports ?? {};

function sourceTree(): SourceFiles {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs)$/.test(entry.name)) files.set(path, readFileSync(join(ROOT, path), 'utf8'));
    }
  };
  for (const dir of ['functions', 'schemas', 'lib', 'bin', 'bench', 'test']) walk(dir);
  return files;
}

const entryFiles = Object.values(FUNCTIONS).map((f) => relative(ROOT, join(ROOT, f.entry)));
const compositionRoots = ['functions/shared/deps.ts', 'functions/shared/archive-deps.ts'];
const eventTypes = EVENT_TYPES.map((d) => d.type);

describe('layering', () => {
  it('holds in the source tree', () => {
    // Act
    const violations = layeringViolations(sourceTree(), {
      entryFiles,
      entryMaxLines: ENTRY_MAX_LINES,
      compositionRoots,
      eventTypes,
      coreMaxLines: CORE_MAX_LINES,
      routeGroupMaxLines: 200,
      subpathImports: SUBPATH_IMPORTS,
    });
    // Assess
    expect(violations).toEqual([]);
  });

  it('finds every kind of violation in a small file set', () => {
    // Prepare
    const files: SourceFiles = new Map([
      [
        'functions/core/a.ts',
        "import { x } from '../shared/x.ts';\nimport { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const a = process.env.A;",
      ],
      ['functions/core/b.ts', "export { route } from '../routes.ts';\nconst later = () => import('../adapters/y.ts');"],
      ['functions/core/aliased.ts', "import { x } from '#shared/x.ts';"],
      ['functions/core/clean.ts', "// process.env is read in shared/config.ts, from '../shared/config.ts'\nimport type { P } from '../ports/p.ts';"],
      ['functions/shared/x.ts', "import { c } from './c.ts';"],
      ['functions/shared/c.ts', "import {\n  x,\n} from './x.ts';"],
      ['functions/adapters/y.ts', ''],
      ['functions/ports/p.ts', ''],
      ['functions/routes.ts', ''],
      ['schemas/s.ts', "import { FAMILIES } from '../functions/core/clean.ts';"],
      ['bench/b.ts', "import { startReceiver } from '../test/helpers/receiver.ts';"],
      ['test/helpers/receiver.ts', ''],
      ['functions/http/long.ts', 'line\n'.repeat(81)],
      ['functions/http/wired.ts', "import { resolveAll } from '../adapters/y.ts';"],
      ['functions/shared/root.ts', "import { resolveAll } from '../adapters/y.ts';\nimport { SQSClient } from '@aws-sdk/client-sqs';"],
      ['functions/shared/queue.ts', "import { SendMessageCommand } from '@aws-sdk/client-sqs';"],
      ['functions/local/seed.ts', 'await client.send(new PutCommand({ TableName, Item }));\nawait s3.send(new PutObjectCommand({}));'],
      ['functions/core/quality/named.ts', "if (c.type === 'market.listed' || c.type === 'market.unknown') open(); // 'market.listed'"],
      ['functions/core/events/market.listed.ts', "export const type = 'market.listed';\nimport { run } from '../detect/run.ts';"],
      ['functions/core/detect/run.ts', "import { type } from '../events/market.listed.ts';"],
      [
        'functions/shared/clients.ts',
        [
          "import { SQSClient } from '@aws-sdk/client-sqs';",
          "import { S3Client as S3, type S3ClientConfig } from '@aws-sdk/client-s3';",
          "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
          "import { traced } from './client-tracing.ts';",
          'export const sqs = traced(new SQSClient({}));',
          'export const s3 = new S3({});',
          'export const dynamo = DynamoDBDocumentClient.from(new DynamoDBClient({}));',
          '// new SQSClient({}) in a comment is no client',
        ].join('\n'),
      ],
      ['functions/shared/client-tracing.ts', ''],
      ['functions/local/emulated.ts', "import { SQSClient } from '@aws-sdk/client-sqs';\nexport const sqs = new SQSClient({});"],
      [
        'functions/core/casts.ts',
        [
          'const a = row as unknown as Fill;',
          '/* a block comment: x as never */',
          'const b = records(parsed.output as\n  never);',
          '// the registry has never seen it, as unknown as it was',
          "const c = 'plain' as string;",
        ].join('\n'),
      ],
      ['functions/shared/casts.ts', 'export const outside = value as unknown as Row;'],
      ['functions/core/market/big.ts', 'export const line = 1;\n'.repeat(301)],
      ['functions/routes/big.ts', 'export const line = 1;\n'.repeat(201)],
    ]);
    // Act
    const violations = layeringViolations(files, {
      entryFiles: ['functions/http/long.ts', 'functions/http/missing.ts'],
      entryMaxLines: 80,
      compositionRoots: ['functions/shared/root.ts', 'functions/shared/clients.ts'],
      eventTypes: ['market.listed'],
      coreMaxLines: 300,
      routeGroupMaxLines: 200,
      subpathImports: { '#shared/*': './functions/shared/*' },
    });
    // Assess
    expect(violations.sort()).toEqual([
      'bench/b.ts: bench imports ../test/helpers/receiver.ts',
      'core folder cycle: detect -> events -> detect',
      'functions/core/a.ts: core imports @aws-sdk/client-dynamodb',
      'functions/core/a.ts: core imports functions/shared/x.ts',
      'functions/core/a.ts: core reads process.env',
      'functions/core/aliased.ts: core imports functions/shared/x.ts',
      'functions/core/b.ts: core imports functions/adapters/y.ts',
      'functions/core/b.ts: core imports functions/routes.ts',
      "functions/core/casts.ts:1: core casts with 'as unknown as'",
      "functions/core/casts.ts:3: core casts with 'as never'",
      'functions/core/market/big.ts: core module has 301 lines (at most 300)',
      'functions/core/quality/named.ts: names the event type market.listed outside core/events/',
      'functions/http/long.ts: entry file has 81 lines (at most 80)',
      'functions/http/missing.ts: entry file not found',
      'functions/http/wired.ts: imports functions/adapters/y.ts outside the composition root',
      'functions/local/seed.ts: reads or writes DynamoDB items outside an adapter',
      'functions/routes/big.ts: route group contract has 201 lines (at most 200)',
      'functions/shared/clients.ts:6: builds S3 without passing it through traced (shared/client-tracing.ts)',
      'functions/shared/clients.ts:7: builds DynamoDBClient without passing it through traced (shared/client-tracing.ts)',
      'functions/shared/queue.ts: imports @aws-sdk/client-sqs outside the composition root',
      'import cycle: functions/core/detect/run.ts -> functions/core/events/market.listed.ts -> functions/core/detect/run.ts',
      'import cycle: functions/shared/c.ts -> functions/shared/x.ts -> functions/shared/c.ts',
      'schemas/s.ts: schemas import functions/core/clean.ts',
    ]);
  });

  it('reads static, re-exported, bare and dynamic imports, and not those in comments', () => {
    // Act
    const specifiers = importSpecifiers(
      [
        "import type { A } from './a.ts';",
        "export * from './b.ts';",
        "import './c.ts';",
        "const d = await import('./d.ts');",
        '/* import { e } from "./e.ts"; */',
        "// import { f } from './f.ts';",
        "const url = 'https://example.com'; import { g } from './g.ts';",
      ].join('\n'),
    );
    // Assess
    expect(specifiers.sort()).toEqual(['./a.ts', './b.ts', './c.ts', './d.ts', './g.ts']);
  });
});
