import { describe, it, expect } from 'vitest';
import { BUCKETS, FUNCTIONS, QUEUES, TABLES, type FunctionName } from '#functions/resources.ts';
import { actionsOf, logicalId, roleStatements, synthesize } from './synth.ts';
import { architectureOf } from '#lib/constructs/service-function.ts';

const { service, stateful, serviceTemplate: template } = synthesize();
const functionNames = Object.keys(FUNCTIONS) as FunctionName[];
const RESOURCE_ENV_VARS = [...Object.values(TABLES), ...Object.values(QUEUES), ...Object.values(BUCKETS)].map((d) => d.envVar);
const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

function functionProps(name: FunctionName) {
  return template.toJSON().Resources[logicalId(service.functions[name])].Properties;
}

function statementsOf(name: FunctionName) {
  return roleStatements(template, logicalId(service.functions[name].executionRole));
}

describe('service functions: runtime', () => {
  it('creates one Lambda function per catalogue entry', () => {
    // Prepare / Act / Assess
    template.resourceCountIs('AWS::Lambda::Function', functionNames.length);
  });

  it.each(functionNames)("runs %s on nodejs22.x (arm64, or DuckDB's installed binding's architecture) with active tracing and the catalogue sizing", (name) => {
    // Prepare
    const def = FUNCTIONS[name];

    // Act
    const props = functionProps(name);

    // Assess
    expect(props).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: [architectureOf(def).name],
      TracingConfig: { Mode: 'Active' },
      MemorySize: def.memoryMb,
      Timeout: def.timeoutS,
      Handler: 'index.handler',
    });
    expect(props.Environment.Variables).toMatchObject({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'market-archive',
      POWERTOOLS_METRICS_NAMESPACE: 'MarketArchive',
    });
  });

  it.each(functionNames)('logs %s to its own log group kept for one month', (name) => {
    // Prepare
    const logGroupId = logicalId(service.functions[name].logGroupOwned);

    // Act
    const props = functionProps(name);

    // Assess
    expect(props.LoggingConfig).toEqual({ LogGroup: { Ref: logGroupId } });
    expect(template.toJSON().Resources[logGroupId].Properties.RetentionInDays).toBe(30);
  });
});

describe('service functions: bindings', () => {
  it.each(functionNames)('gives %s exactly the resource variables its catalogue bindings name', (name) => {
    // Prepare
    const def = FUNCTIONS[name];
    const expected = [
      ...Object.keys(def.tables ?? {}).map((t) => TABLES[t as keyof typeof TABLES].envVar),
      ...Object.keys(def.queues ?? {}).map((q) => QUEUES[q as keyof typeof QUEUES].envVar),
      ...Object.keys(def.buckets ?? {}).map((b) => BUCKETS[b as keyof typeof BUCKETS].envVar),
    ].sort();

    // Act
    const variables = Object.keys(functionProps(name).Environment.Variables as Record<string, unknown>);

    // Assess
    expect(variables.filter((v) => RESOURCE_ENV_VARS.includes(v)).sort()).toEqual(expected);
  });

  it('lets the authorizer only read the accounts table', () => {
    // Prepare
    const accountsId = logicalId(stateful.tables.accounts);
    const otherTableIds = Object.entries(stateful.tables)
      .filter(([n]) => n !== 'accounts')
      .map(([, t]) => logicalId(t));

    // Act
    const statements = statementsOf('authorizer').filter((s) => actionsOf([s]).some((a) => a.startsWith('dynamodb:')));

    // Assess
    expect(statements.length).toBeGreaterThan(0);
    expect(actionsOf(statements)).toContain('dynamodb:GetItem');
    expect(actionsOf(statements).filter((a) => TABLE_WRITE_ACTIONS.includes(a))).toEqual([]);
    const resources = JSON.stringify(statements.map((s) => s.Resource));
    expect(resources).toContain(accountsId);
    for (const id of otherTableIds) expect(resources).not.toContain(id);
  });

  it.each(functionNames.filter((name) => !FUNCTIONS[name].tables))('grants %s no DynamoDB actions, since it binds no table', (name) => {
    // Prepare / Act
    const actions = actionsOf(statementsOf(name));

    // Assess
    expect(actions.filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
  });

  it.each(functionNames.filter((name) => !FUNCTIONS[name].queues && !FUNCTIONS[name].consumes))('grants %s no SQS actions, since it binds no queue', (name) => {
    // Prepare / Act
    const actions = actionsOf(statementsOf(name));

    // Assess
    expect(actions.filter((a) => a.startsWith('sqs:'))).toEqual([]);
  });

  it.each(functionNames)('lets %s write only to its own log group, without the managed basic execution role', (name) => {
    // Prepare
    const fn = service.functions[name];

    // Act
    const role = template.toJSON().Resources[logicalId(fn.executionRole)];
    const logStatements = statementsOf(name).filter((s) => actionsOf([s]).some((a) => a.startsWith('logs:')));

    // Assess
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(logStatements).toEqual([expect.objectContaining({ Resource: { 'Fn::GetAtt': [logicalId(fn.logGroupOwned), 'Arn'] } })]);
  });
});
