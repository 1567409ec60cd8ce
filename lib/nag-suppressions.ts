/**
 * Every cdk-nag AwsSolutions acknowledgement, in one place, each on the narrowest construct with
 * its reason. cdk-nag 3 runs as a CDK policy-validation plugin and matches exact finding ids
 * (`AwsSolutions::AwsSolutions-IAM5[Resource::...]`), so ids that name resources are computed
 * from the same catalogue entries that created the grants.
 */
import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { FUNCTIONS, STATE_MACHINES, TABLES, type Access } from '../functions/resources.ts';
import { entriesOf } from './typed-records.ts';
import type { ServiceStacks } from './service-stacks.ts';
import type { StatefulStack } from './stateful-stack.ts';

const PACK = 'AwsSolutions';

function ack(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${PACK}::${PACK}-${rule}`, reason });
}

/**
 * The export name CloudFormation will carry a value of another stack under. `exportValue` without
 * a name returns the very export CDK creates for the automatic cross-stack reference, and cdk-nag
 * prints an imported value by that name.
 */
function importedName(producer: Stack, consumer: Stack, value: string): string {
  const resolved = consumer.resolve(producer.exportValue(value)) as { 'Fn::ImportValue': string };
  return resolved['Fn::ImportValue'];
}

/** A value as cdk-nag prints it in a finding id: a reference in its stack, or the import of another stack's value. */
function referenced(consumer: Stack, element: CfnElement, value: string): string {
  const producer = Stack.of(element);
  return producer === consumer
    ? JSON.stringify({ Ref: producer.getLogicalId(element) })
    : JSON.stringify({ 'Fn::ImportValue': importedName(producer, consumer, value) });
}

/** S3's grant helpers use action families; these are the wildcard families each access level adds. */
const S3_ACTION_FAMILIES: Readonly<Record<Access, readonly string[]>> = {
  read: ['s3:GetObject*', 's3:GetBucket*', 's3:List*'],
  write: ['s3:DeleteObject*', 's3:Abort*'],
  readwrite: ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'],
};

export function applyNagSuppressions(stateful: StatefulStack, service: ServiceStacks): void {
  for (const [name, def] of entriesOf(FUNCTIONS)) {
    const fn = service.functions[name];
    ack(
      fn,
      'L1',
      'nodejs22.x is the pinned target of the whole toolchain (esbuild target node22, @types/node 22, local tests); runtime upgrades are deliberate.',
    );
    const role = fn.executionRole;
    const stack = Stack.of(fn);
    ack(role, 'IAM5[Resource::*]', 'X-Ray PutTraceSegments/PutTelemetryRecords (active tracing) support no resource-level permissions.');

    for (const [table] of entriesOf(def.tables)) {
      // CDK's table grants cover the table's indexes as `<table arn>/index/*`.
      if (TABLES[table].globalIndexes.length === 0) continue;
      const arn = importedName(stateful, stack, stateful.tables[table].tableArn);
      ack(role, `IAM5[Resource::${arn}/index/*]`, `Queries the ${table} table's own indexes, all declared in the catalogue.`);
    }
    for (const [bucket, access] of entriesOf(def.buckets)) {
      const arn = importedName(stateful, stack, stateful.buckets[bucket].bucketArn);
      ack(role, `IAM5[Resource::${arn}/*]`, `Object-level access to the ${bucket} bucket it is bound to (${access}).`);
      for (const family of S3_ACTION_FAMILIES[access]) {
        ack(role, `IAM5[Action::${family}]`, `CDK's S3 ${access} grant for the ${bucket} bucket, scoped to that bucket only.`);
      }
    }
    for (const [machine] of entriesOf(def.stateMachines)) {
      const started = service.stateMachines[machine];
      const arn = referenced(stack, started.node.defaultChild as CfnElement, started.stateMachineArn);
      const executions = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",${arn}]}]}:*`;
      ack(
        role,
        `IAM5[Resource::${executions}]`,
        `StopExecution on executions of the ${machine} state machine only (their names are job ids, known at run time).`,
      );
    }
  }

  const api = service.api.api;
  ack(
    api,
    'APIG2',
    "Requests are validated by the handlers with the route table's valibot schemas, which answer the spec's 400 body naming the parameter; gateway validation would answer a different body first.",
  );
  ack(service.api, 'COG4', 'Callers authenticate with API keys resolved by the REQUEST Lambda authorizer; there are no Cognito users.');
  ack(
    api.deploymentStage,
    'APIG3',
    'No WAF for now: per-account throttling comes from usage plans and keys are required on data routes; revisit if abuse appears.',
  );
  const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRole) {
    ack(
      cloudWatchRole,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'The account-level API Gateway logging role; this AWS managed policy is the one API Gateway documents for it.',
    );
  }
  for (const method of service.api.publicMethods) {
    ack(method, 'APIG4', 'Public by design: health, the OpenAPI document, and the 405 answer for wrong methods.');
  }

  ack(
    stateful.cursorKeys,
    'SMG4',
    'Cursor keys rotate by hand (add a newer key first, drop the old one after the 24-hour cursor lifetime; README): an automatic rotation would have to keep the previous key for a day, which a single-value rotation cannot.',
  );

  // CDK configures S3 -> SQS notifications through its own singleton custom-resource function.
  const notifications = stateful.node.children.find((c) => c.node.id.startsWith('BucketNotificationsHandler'));
  if (notifications) {
    ack(
      notifications,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "CDK's own bucket-notification custom resource (deploy time only); its role and policy are fixed by CDK.",
    );
    ack(notifications, 'IAM5[Resource::*]', "PutBucketNotification on the buckets CDK configures; the custom resource is CDK's, not ours.");
  }

  for (const [name, def] of entriesOf(STATE_MACHINES)) {
    const machine = service.stateMachines[name];
    ack(machine, 'SF1', 'Runs every minute; ERROR-level logs with execution data plus X-Ray tracing suffice, ALL would log every transition.');
    ack(machine.role, 'IAM5[Resource::*]', 'CloudWatch Logs delivery actions and X-Ray tracing of the state machine support no resource-level permissions.');
    for (const fnName of new Set(Object.values(def.tasks))) {
      const logicalId = Stack.of(machine).getLogicalId(service.functions[fnName].node.defaultChild as CfnElement);
      ack(
        machine.role,
        `IAM5[Resource::<${logicalId}.Arn>:*]`,
        `LambdaInvoke may invoke versions and aliases of the ${fnName} function, and only that function.`,
      );
    }
  }
}
