/**
 * The stateless half of the app: a stack per flow (ARCHITECTURE.md, "The flows"), the REST API in
 * the query flow's, and the operators' alarms and dashboard in a stack of their own. Each is wired
 * to the stateful stack's resources, and to the state machines of the flows before it, through
 * props (CDK makes the exports). One stack could not hold them all: CloudFormation allows 500
 * resources a stack (test/infra/quotas.suite.ts holds every stack to 80% of its quotas).
 */
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { Flow, FunctionName, StateMachineName } from '../functions/resources.ts';
import { routeGroups } from '../functions/routes.ts';
import { entriesOf, pascalCase } from './typed-records.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import { ServiceRestApi } from './constructs/rest-api.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { FlowStack } from './flow-stack.ts';
import type { StatefulResources } from './stateful-stack.ts';

/**
 * Each flow's stack, in the order they are built: a flow's functions may start the state machines
 * of a flow before it (the API starts export and replay jobs), never after.
 */
const FLOW_STACKS: Readonly<Record<Flow, { id: string; description: string }>> = {
  ingest: {
    id: 'MarketArchiveIngest',
    description: 'Market archive ingest: raw batches to Parquet, and the minute jobs over the archive (compaction, positions, breadth, detection)',
  },
  deliver: {
    id: 'MarketArchiveDelivery',
    description: 'Market archive webhook delivery: the delivery lanes, account events, long-delay timers and the sweeps',
  },
  jobs: { id: 'MarketArchiveJobs', description: 'Market archive jobs: the export and replay state machines and their tasks' },
  query: { id: 'MarketArchiveApi', description: 'Market archive API: the REST API, its key authorizer and the route-group functions' },
};

export interface ServiceStacksProps {
  readonly stateful: StatefulResources;
}

export class ServiceStacks {
  /** Every stack of the service, flows first. */
  readonly stacks: readonly Stack[];
  readonly functions: Readonly<Record<FunctionName, ServiceFunction>>;
  readonly stateMachines: Readonly<Record<StateMachineName, StateMachine>>;
  readonly api: ServiceRestApi;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, { stateful }: ServiceStacksProps) {
    const flows: Partial<Record<Flow, FlowStack>> = {};
    let stateMachines: Partial<Record<StateMachineName, StateMachine>> = {};
    for (const [flow, { id, description }] of entriesOf(FLOW_STACKS)) {
      flows[flow] = new FlowStack(scope, id, { description, flow, stateful, otherStateMachines: stateMachines });
      stateMachines = { ...stateMachines, ...flows[flow].stateMachines };
    }
    this.functions = Object.assign({}, ...Object.values(flows).map((stack) => stack.functions)) as Record<FunctionName, ServiceFunction>;
    this.stateMachines = stateMachines as Record<StateMachineName, StateMachine>;

    // Route groups seal and open cursors with the key ring (functions/shared/deps.ts cursorKeys).
    for (const group of routeGroups()) {
      stateful.cursorKeys.grantRead(this.functions[group]);
      this.functions[group].addEnvironment('CURSOR_KEYS_SECRET_ARN', stateful.cursorKeys.secretArn);
    }
    const apiStack = flows.query!;
    this.api = new ServiceRestApi(apiStack, 'api', { functions: this.functions });
    // Read by the keys CLI and operators; top-level ids keep the output keys exactly these names.
    new CfnOutput(apiStack, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the prod stage' });
    for (const [tier, plan] of entriesOf(this.api.usagePlans)) {
      new CfnOutput(apiStack, `UsagePlanId${pascalCase(tier)}`, { value: plan.usagePlanId, description: `Usage plan of the ${tier} tier` });
    }

    const monitoringStack = new Stack(scope, 'MarketArchiveMonitoring', {
      description: 'Market archive operations: the alarms, their topic and the dashboard',
    });
    this.monitoring = new Monitoring(monitoringStack, 'monitoring', { api: this.api.api, deadLetterQueues: stateful.deadLetterQueues });
    new CfnOutput(monitoringStack, 'AlarmTopicArn', {
      value: this.monitoring.topic.topicArn,
      description: 'Subscribe to receive the alarms (README: Deploying)',
    });
    new CfnOutput(monitoringStack, 'DashboardName', { value: this.monitoring.dashboard.dashboardName, description: 'The CloudWatch dashboard' });
    this.stacks = [...Object.values(flows), monitoringStack];
  }
}
