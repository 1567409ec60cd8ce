/**
 * The service quotas a deploy can run into, measured over the synthesized app (every stack, nested
 * ones included) and each held to 80% of its documented limit, so growth fails here, with the
 * figure, before it fails a deploy. The table printed is the one the README's deploy section quotes.
 *
 * Values that CloudFormation fills in at deploy time (physical names, ARNs, queue URLs) count as
 * the longest they can be here: generated names as `<stack>-<logical id>-<13 characters>` (capped
 * at the service's own limit), in a 14-character region.
 */
import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { build, type BuildOptions } from 'esbuild';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, type FunctionName } from '#functions/resources.ts';
import { bundlingOf, copiedPackagesOf } from '#lib/constructs/service-function.ts';
import { synthesize } from './synth.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHARE = 0.8;

interface Figure {
  name: string;
  value: number;
}
interface Quota {
  quota: string;
  limit: number;
  figures: Figure[];
}

type Json = any;
interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Json; Metadata?: Record<string, string> }>;
  Parameters?: object;
  Outputs?: Record<string, { Value: Json; Export?: { Name: string } }>;
}

const { app } = synthesize();
const stacks = app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
const templates = new Map(stacks.map((stack) => [stack, Template.fromStack(stack).toJSON() as CfnTemplate]));

// ---- Values CloudFormation resolves at deploy time, at their longest ----

const REGION = 'ap-southeast-2';
const ACCOUNT = '123456789012';
/** Longest physical name each service allows (CloudFormation truncates its generated names to it). */
const NAME_LIMIT: Record<string, number> = {
  'AWS::DynamoDB::GlobalTable': 255,
  'AWS::SQS::Queue': 80,
  'AWS::S3::Bucket': 63,
  'AWS::Lambda::Function': 64,
  'AWS::StepFunctions::StateMachine': 80,
  'AWS::SecretsManager::Secret': 512,
  'AWS::Logs::LogGroup': 512,
  'AWS::IAM::Role': 64,
  'AWS::SNS::Topic': 256,
};
const arnOf: Record<string, (name: string) => string> = {
  'AWS::DynamoDB::GlobalTable': (n) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${n}`,
  'AWS::SQS::Queue': (n) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${n}`,
  'AWS::S3::Bucket': (n) => `arn:aws:s3:::${n}`,
  'AWS::Lambda::Function': (n) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${n}`,
  'AWS::StepFunctions::StateMachine': (n) => `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${n}`,
  'AWS::SecretsManager::Secret': (n) => `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${n}-AbCdEf`,
  'AWS::Logs::LogGroup': (n) => `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${n}:*`,
  'AWS::IAM::Role': (n) => `arn:aws:iam::${ACCOUNT}:role/${n}`,
  'AWS::SNS::Topic': (n) => `arn:aws:sns:${REGION}:${ACCOUNT}:${n}`,
};
/** What `Ref` returns, by resource type (the rest return the physical name). */
const REF_IS: Record<string, 'arn' | 'url'> = {
  'AWS::SQS::Queue': 'url',
  'AWS::StepFunctions::StateMachine': 'arn',
  'AWS::SecretsManager::Secret': 'arn',
  'AWS::SNS::Topic': 'arn',
};

const exportsByName = new Map<string, { stack: Stack; value: Json }>();
for (const [stack, template] of templates) {
  for (const output of Object.values(template.Outputs ?? {})) if (output.Export) exportsByName.set(output.Export.Name, { stack, value: output.Value });
}

function physicalName(stack: Stack, logicalId: string, type: string): string {
  const limit = NAME_LIMIT[type];
  if (!limit) throw new Error(`No name length known for ${type} (${logicalId})`);
  return `${stack.stackName}-${logicalId}-ABCDEFGHIJKLM`.slice(0, limit);
}

/** A resource's `Ref` (attr 'ref') or `Fn::GetAtt` value. */
function attribute(stack: Stack, logicalId: string, attr: string): string {
  const type = templates.get(stack)!.Resources[logicalId]?.Type;
  if (!type) throw new Error(`${logicalId} is not a resource of ${stack.stackName}`);
  const name = physicalName(stack, logicalId, type);
  const kind = attr === 'ref' ? (REF_IS[type] ?? 'name') : attr === 'Arn' ? 'arn' : attr === 'QueueUrl' ? 'url' : attr === 'QueueName' ? 'name' : undefined;
  if (kind === 'name') return name;
  if (kind === 'url') return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
  if (kind === 'arn') return arnOf[type]!(name);
  throw new Error(`No value known for ${type}.${attr}`);
}

/** A template value as the string it becomes at deploy time (at its longest). */
function resolved(stack: Stack, value: Json): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) throw new Error(`Unexpected list ${JSON.stringify(value)}`);
  const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com' };
  if ('Ref' in value) return pseudo[value.Ref] ?? attribute(stack, value.Ref, 'ref');
  if ('Fn::GetAtt' in value) return attribute(stack, value['Fn::GetAtt'][0], value['Fn::GetAtt'][1]);
  if ('Fn::ImportValue' in value) {
    const exported = exportsByName.get(value['Fn::ImportValue']);
    if (!exported) throw new Error(`No export named ${value['Fn::ImportValue']}`);
    return resolved(exported.stack, exported.value);
  }
  if ('Fn::Join' in value) return value['Fn::Join'][1].map((part: Json) => resolved(stack, part)).join(value['Fn::Join'][0]);
  if ('Fn::Select' in value) {
    const [
      index,
      {
        'Fn::Split': [separator, source],
      },
    ] = value['Fn::Select'];
    return resolved(stack, source).split(separator)[index]!;
  }
  throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
}

/** A JSON document with every intrinsic replaced by its deploy-time string. */
function withValues(stack: Stack, value: Json): Json {
  if (Array.isArray(value)) return value.map((item) => withValues(stack, item));
  if (value === null || typeof value !== 'object') return value;
  if (Object.keys(value).some((key) => key === 'Ref' || key.startsWith('Fn::'))) return resolved(stack, value);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withValues(stack, item)]));
}

/** The resources of a type in every stack, each named by its construct path. */
const resourcesOf = (type: string) =>
  [...templates].flatMap(([stack, template]) =>
    Object.entries(template.Resources)
      .filter(([, r]) => r.Type === type)
      .map(([id, r]) => ({ stack, id, name: r.Metadata?.['aws:cdk:path']?.replace(/\/Resource$/, '') ?? `${stack.node.path}/${id}`, props: r.Properties })),
  );

// ---- The quotas ----

function cloudFormationQuotas(): Quota[] {
  const perStack = (count: (template: CfnTemplate) => number) => [...templates].map(([stack, template]) => ({ name: stack.node.path, value: count(template) }));
  return [
    // The synthesis has the CDK CLI's metadata (synth.ts), its AWS::CDK::Metadata resource in every stack included.
    { quota: 'CloudFormation resources per stack', limit: 500, figures: perStack((t) => Object.keys(t.Resources).length) },
    { quota: 'CloudFormation parameters per stack', limit: 200, figures: perStack((t) => Object.keys(t.Parameters ?? {}).length) },
    { quota: 'CloudFormation outputs per stack', limit: 200, figures: perStack((t) => Object.keys(t.Outputs ?? {}).length) },
    // CDK writes templates indented by one space and uploads them to S3 (a template body in S3: 1 MB; CDK checks 1,000,000 bytes).
    { quota: 'CloudFormation template size, bytes', limit: 1_000_000, figures: perStack((t) => Buffer.byteLength(JSON.stringify(t, undefined, 1))) },
  ];
}

const restApis = resourcesOf('AWS::ApiGateway::RestApi');

function apiGatewayQuota(): Quota {
  // One REST API (checked below), so every resource is its; the root resource `/` counts too.
  const resources = resourcesOf('AWS::ApiGateway::Resource');
  return { quota: 'API Gateway resources per REST API', limit: 300, figures: restApis.map((api) => ({ name: api.props.Name, value: resources.length + 1 })) };
}

/** Bytes of a file or of every file under a directory. */
function sizeOnDisk(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOnDisk(join(path, entry)), 0);
}

/**
 * Each function's deployment package unzipped: its esbuild bundle and source map, built with the
 * options the construct passes (functions that bundle alike are built together), and the installed
 * files copied beside it (DuckDB's binding, the docs renderer).
 */
async function packageQuota(): Promise<Quota> {
  const byOptions = new Map<string, FunctionName[]>();
  for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
    const key = JSON.stringify(bundlingOf(FUNCTIONS[name]));
    byOptions.set(key, [...(byOptions.get(key) ?? []), name]);
  }
  const figures: Figure[] = [];
  for (const names of byOptions.values()) {
    const options = bundlingOf(FUNCTIONS[names[0]!]);
    const esbuild: BuildOptions = {
      entryPoints: Object.fromEntries(names.map((name) => [name, join(ROOT, FUNCTIONS[name].entry)])),
      bundle: true,
      platform: 'node',
      write: false,
      outdir: '/bundle',
      logLevel: 'error',
      format: options.format,
      target: options.target,
      mainFields: options.mainFields,
      minify: options.minify,
      sourcemap: options.sourceMap,
      external: options.externalModules,
      banner: options.banner ? { js: options.banner } : undefined,
    };
    const { outputFiles } = await build(esbuild);
    for (const name of names) {
      const bundle = outputFiles!.filter((file) => file.path.startsWith(`/bundle/${name}.`)).reduce((sum, file) => sum + file.contents.length, 0);
      const copied = copiedPackagesOf(FUNCTIONS[name]).reduce((sum, path) => sum + sizeOnDisk(join(ROOT, 'node_modules', path)), 0);
      figures.push({ name, value: bundle + copied });
    }
  }
  return { quota: 'Lambda deployment package unzipped, bytes', limit: 250 * 1024 * 1024, figures };
}

function environmentQuota(): Quota {
  const figures = resourcesOf('AWS::Lambda::Function').map(({ stack, name, props }) => {
    const variables = withValues(stack, props.Environment?.Variables ?? {}) as Record<string, string>;
    return { name, value: Object.entries(variables).reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0) };
  });
  return { quota: 'Lambda environment variables per function, bytes', limit: 4 * 1024, figures };
}

/** IAM counts policy documents without white space. */
const policyLength = (stack: Stack, document: Json) => JSON.stringify(withValues(stack, document)).length;

const roles = resourcesOf('AWS::IAM::Role');
const attached = resourcesOf('AWS::IAM::Policy');

function iamQuotas(): Quota[] {
  // Every role's inline policies: its own `Policies` and the AWS::IAM::Policy resources attached to it (in its stack).
  const inline = roles.map(({ stack, id, name, props }) => ({
    name,
    value: [
      ...(props.Policies ?? []),
      ...attached.filter((p) => p.stack === stack && p.props.Roles?.some((role: Json) => role.Ref === id)).map((p) => p.props),
    ].reduce((sum, policy) => sum + policyLength(stack, policy.PolicyDocument), 0),
  }));
  const managed = resourcesOf('AWS::IAM::ManagedPolicy').map(({ stack, name, props }) => ({ name, value: policyLength(stack, props.PolicyDocument) }));
  return [
    { quota: 'IAM inline policies per role, characters', limit: 10_240, figures: inline },
    { quota: 'IAM managed policy, characters', limit: 6_144, figures: managed },
  ];
}

const quotas: Quota[] = [...cloudFormationQuotas(), apiGatewayQuota(), await packageQuota(), environmentQuota(), ...iamQuotas()];

const largest = (quota: Quota): Figure => quota.figures.reduce((a, b) => (b.value > a.value ? b : a), { name: '(none)', value: 0 });

// The figures the README quotes: the largest of each quota, its share of the limit, and the room left below 80%.
console.log(
  quotas
    .map((quota) => {
      const top = largest(quota);
      return (
        `${quota.quota}: ${top.value.toLocaleString('en')} of ${quota.limit.toLocaleString('en')} (${((100 * top.value) / quota.limit).toFixed(1)}%, ${top.name}); `
        + `${Math.floor(quota.limit * SHARE - top.value).toLocaleString('en')} left below ${SHARE * 100}%`
      );
    })
    .join('\n'),
);

describe('service quotas', () => {
  it('measures every stack, function and role, of the one REST API', () => {
    expect(restApis).toHaveLength(1);
    expect(quotas.find((q) => q.quota.startsWith('Lambda deployment'))!.figures).toHaveLength(Object.keys(FUNCTIONS).length);
    expect(quotas[0]!.figures).toHaveLength(stacks.length);
    const roleOf = (ref: Json, stack: Stack) => roles.some((r) => r.stack === stack && r.id === ref.Ref);
    expect(attached.filter((policy) => !policy.props.Roles?.every((ref: Json) => roleOf(ref, policy.stack))).map((p) => p.name)).toEqual([]);
  });

  it.each(quotas.map((quota) => [quota.quota, quota] as const))('keeps %s within 80% of the limit', (_, quota) => {
    const over = quota.figures.filter((figure) => figure.value > quota.limit * SHARE);
    expect(over, `limit ${quota.limit}`).toEqual([]);
  });
});
