/**
 * Wiring for catalogue features the current catalogue does not use yet: a route behind an API key,
 * an SQS consumer, a bucket binding, a table with a global index. The catalogue modules are
 * extended here (never edited), so this stays true whatever the live entries are.
 */
import { describe, it, expect, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import type { FunctionDef } from '#functions/resources.ts';
import type { RouteDef } from '#functions/routes/operation.ts';
import { actionsOf, logicalId, roleStatements, synthesize } from './synth.ts';

vi.mock('../../functions/resources.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('#functions/resources.ts')>();
  // `system` stands in for any function: it has no bindings of its own in the live catalogue.
  const system: FunctionDef = {
    ...original.FUNCTIONS.system,
    tables: { webhooks: 'readwrite' },
    buckets: { archive: 'read' },
    consumes: 'ingest',
  };
  return { ...original, FUNCTIONS: { ...original.FUNCTIONS, system } };
});

vi.mock('../../functions/routes.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('#functions/routes.ts')>();
  const keyed: RouteDef = { ...original.ROUTES[0]!, operationId: 'keyedProbe', path: '/v1/probe/{id}', auth: 'api_key' };
  return { ...original, ROUTES: [...original.ROUTES, keyed] };
});

const { FUNCTIONS, QUEUES, TABLES, BUCKETS } = await import('#functions/resources.ts');
const { API_KEY_HEADER, AUTHORIZER_CACHE_TTL_S } = await import('#functions/routes.ts');
// The live app's templates are validated by service-stacks.test.ts; this file checks wiring.
const { app, service, stateful, serviceTemplate: template } = synthesize({ cloudFormationValidation: false });

describe('catalogue coverage: API keys', () => {
  it('guards an api_key route with a REQUEST authorizer on the X-API-Key header', () => {
    // Prepare
    const authorizerFn = logicalId(service.functions.authorizer);

    // Act
    const authorizers = Object.values(template.findResources('AWS::ApiGateway::Authorizer'));

    // Assess
    expect(authorizers).toHaveLength(1);
    expect(authorizers[0]!.Properties).toMatchObject({
      Type: 'REQUEST',
      IdentitySource: `method.request.header.${API_KEY_HEADER}`,
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_S,
    });
    expect(JSON.stringify(authorizers[0]!.Properties.AuthorizerUri)).toContain(authorizerFn);
  });

  it('requires an API key on the keyed method so usage plans throttle it', () => {
    // Prepare / Act / Assess
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      OperationName: 'keyedProbe',
      AuthorizationType: 'CUSTOM',
      ApiKeyRequired: true,
      AuthorizerId: { Ref: Match.anyValue() },
    });
  });
});

describe('catalogue coverage: bindings', () => {
  it('consumes the declared queue with partial batch failures and the catalogue batch size', () => {
    // Prepare
    const queueId = logicalId(stateful.queues.ingest);

    // Act
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
      (m) => JSON.stringify(m.Properties.FunctionName) === JSON.stringify({ Ref: logicalId(service.functions.system) }),
    );

    // Assess
    expect(mappings).toHaveLength(1);
    expect(mappings[0]!.Properties).toMatchObject({
      FunctionName: { Ref: logicalId(service.functions.system) },
      BatchSize: QUEUES.ingest.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(JSON.stringify(mappings[0]!.Properties.EventSourceArn)).toContain(queueId);
  });

  it('sets each bound resource variable together with its grant', () => {
    // Prepare
    const variables = template.toJSON().Resources[logicalId(service.functions.system)].Properties.Environment.Variables;

    // Act
    const actions = actionsOf(roleStatements(template, logicalId(service.functions.system.executionRole)));

    // Assess
    expect(Object.keys(variables)).toEqual(expect.arrayContaining([TABLES.webhooks.envVar, BUCKETS.archive.envVar]));
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 's3:GetObject*', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    expect(actions).not.toContain('s3:PutObject');
    expect(FUNCTIONS.system.tables).toEqual({ webhooks: 'readwrite' });
  });

  it('still passes cdk-nag, with the binding wildcards acknowledged by catalogue-derived ids', () => {
    // Prepare
    const assembly = app.synth();

    // Act
    const report = JSON.parse(readFileSync(join(assembly.directory, VALIDATION_REPORT_FILE), 'utf8')) as {
      pluginReports: { pluginName: string; violations: unknown[]; suppressedViolations?: { ruleName: string }[] }[];
    };
    const nag = report.pluginReports.find((p) => p.pluginName === 'AwsSolutions')!;

    // Assess
    expect(nag.violations).toEqual([]);
    const acknowledged = (nag.suppressedViolations ?? []).map((v) => v.ruleName);
    expect(acknowledged).toEqual(
      expect.arrayContaining([expect.stringMatching(/IAM5\[Resource::.*\/index\/\*\]/), 'AwsSolutions-IAM5[Action::s3:GetObject*]']),
    );
  });
});
