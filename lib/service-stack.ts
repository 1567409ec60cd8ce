/**
 * The stateless half: functions, API, state machines and schedules, all derived from the catalogue
 * and wired to the stateful stack's resources. Safe to destroy and redeploy at will.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { FUNCTIONS, QUEUES, type FunctionDef, type FunctionName } from '../functions/resources.ts';
import { entriesOf, mapRecord, pascalCase } from './typed-records.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { routeGroups } from '../functions/routes.ts';
import { ServiceRestApi } from './constructs/rest-api.ts';
import { Schedules } from './constructs/schedules.ts';
import { StateMachines } from './constructs/state-machines.ts';
import { Monitoring } from './constructs/monitoring.ts';
import type { StatefulResources } from './stateful-stack.ts';

export interface ServiceStackProps extends StackProps {
  readonly stateful: StatefulResources;
}

export class ServiceStack extends Stack {
  readonly functions: Readonly<Record<FunctionName, ServiceFunction>>;
  readonly api: ServiceRestApi;
  readonly stateMachines: StateMachines;
  readonly schedules: Schedules;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const functionScope = new Construct(this, 'functions');
    this.functions = mapRecord(FUNCTIONS, (name, def) => {
      const fn = new ServiceFunction(functionScope, name, { name, def });
      bindDeclared(fn, def, props.stateful);
      return fn;
    });

    // Route groups seal and open cursors with the key ring (functions/shared/deps.ts cursorKeys).
    for (const group of routeGroups()) {
      props.stateful.cursorKeys.grantRead(this.functions[group]);
      this.functions[group].addEnvironment('CURSOR_KEYS_SECRET_ARN', props.stateful.cursorKeys.secretArn);
    }
    this.api = new ServiceRestApi(this, 'api', { functions: this.functions });
    this.stateMachines = new StateMachines(this, 'state-machines', { functions: this.functions });
    for (const [name, def] of entriesOf(FUNCTIONS)) {
      for (const [machine, access] of entriesOf(def.stateMachines)) this.functions[name].bindStateMachine(machine, this.stateMachines.machines[machine], access);
    }
    this.schedules = new Schedules(this, 'schedules', {
      functions: this.functions,
      stateMachines: this.stateMachines.machines,
    });

    this.monitoring = new Monitoring(this, 'monitoring', { api: this.api.api, deadLetterQueues: props.stateful.deadLetterQueues });

    // Read by the keys CLI and operators; top-level ids keep the output keys exactly these names.
    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the prod stage' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'Subscribe to receive the alarms (README: Deploying)' });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName, description: 'The CloudWatch dashboard' });
    for (const [tier, plan] of entriesOf(this.api.usagePlans)) {
      new CfnOutput(this, `UsagePlanId${pascalCase(tier)}`, { value: plan.usagePlanId, description: `Usage plan of the ${tier} tier` });
    }
    for (const [name, table] of entriesOf(props.stateful.tables)) {
      new CfnOutput(this, `${pascalCase(name)}TableName`, { value: table.tableName, description: `Physical name of the ${name} table` });
    }
  }
}

/** Grants and environment exactly as the catalogue declares them, and the queue it consumes. */
function bindDeclared(fn: ServiceFunction, def: FunctionDef, stateful: StatefulResources): void {
  for (const [name, access] of entriesOf(def.tables)) fn.bindTable(name, stateful.tables[name], access);
  for (const [name, access] of entriesOf(def.queues)) fn.bindQueue(name, stateful.queues[name], access);
  for (const [name, access] of entriesOf(def.buckets)) fn.bindBucket(name, stateful.buckets[name], access);
  if (def.consumes) {
    const queue = QUEUES[def.consumes];
    // SQS would redeliver a message still being processed; CloudFormation rejects the mapping too.
    if (queue.visibilityTimeoutS < def.timeoutS) {
      throw new Error(`Queue ${def.consumes} visibility timeout (${queue.visibilityTimeoutS}s) is below its consumer's timeout (${def.timeoutS}s)`);
    }
    fn.addEventSource(
      new SqsEventSource(stateful.queues[def.consumes], { batchSize: queue.batchSize, reportBatchItemFailures: true, maxConcurrency: queue.maxConcurrency }),
    );
    fn.bindDeadLetterQueue(def.consumes, stateful.deadLetterQueues[def.consumes]);
  }
}
