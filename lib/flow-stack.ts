/**
 * One flow's stack (`flow` in functions/resources.ts): its functions, bound to the stateful stack's
 * resources as the catalogue declares them, the state machines whose tasks they are and the
 * schedules that start either. Stateless: safe to destroy and redeploy at will.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IStateMachine, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { FUNCTIONS, QUEUES, SCHEDULES, STATE_MACHINES, type Flow, type FunctionDef, type FunctionName, type StateMachineName } from '../functions/resources.ts';
import { entriesOf } from './typed-records.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { StateMachines } from './constructs/state-machines.ts';
import { Schedules } from './constructs/schedules.ts';
import type { StatefulResources } from './stateful-stack.ts';

/** The flow of a state machine: its task functions', which must share one. */
function flowOfMachine(name: StateMachineName): Flow {
  const flows = new Set(Object.values(STATE_MACHINES[name].tasks).map((fn) => FUNCTIONS[fn].flow));
  if (flows.size !== 1) throw new Error(`State machine ${name}: its tasks belong to the flows [${[...flows].join(', ')}], not one`);
  return [...flows][0]!;
}

export interface FlowStackProps extends StackProps {
  readonly flow: Flow;
  readonly stateful: StatefulResources;
  /** State machines of the flows built before this one, which its functions may start. */
  readonly otherStateMachines: Readonly<Partial<Record<StateMachineName, IStateMachine>>>;
}

export class FlowStack extends Stack {
  readonly functions: Readonly<Partial<Record<FunctionName, ServiceFunction>>>;
  readonly stateMachines: Readonly<Partial<Record<StateMachineName, StateMachine>>>;

  constructor(scope: Construct, id: string, props: FlowStackProps) {
    super(scope, id, props);
    const functionScope = new Construct(this, 'functions');
    const functions: Partial<Record<FunctionName, ServiceFunction>> = {};
    for (const [name, def] of entriesOf(FUNCTIONS)) {
      if (def.flow !== props.flow) continue;
      functions[name] = bindDeclared(new ServiceFunction(functionScope, name, { name, def }), def, props.stateful);
    }
    this.functions = functions;

    const machines = (Object.keys(STATE_MACHINES) as StateMachineName[]).filter((name) => flowOfMachine(name) === props.flow);
    this.stateMachines = new StateMachines(this, 'state-machines', { names: machines, functions }).machines;
    for (const [name, fn] of entriesOf(functions)) {
      for (const [machine, access] of entriesOf(FUNCTIONS[name].stateMachines)) {
        const started = this.stateMachines[machine] ?? props.otherStateMachines[machine];
        if (!started) throw new Error(`Function ${name} starts the ${machine} state machine, which no earlier flow has`);
        fn.bindStateMachine(machine, started, access);
      }
    }

    const flowOfTarget = ({ target }: (typeof SCHEDULES)[string]) =>
      'stateMachine' in target ? flowOfMachine(target.stateMachine) : FUNCTIONS[target.function].flow;
    const schedules = Object.keys(SCHEDULES).filter((name) => flowOfTarget(SCHEDULES[name]!) === props.flow);
    new Schedules(this, 'schedules', { names: schedules, functions, stateMachines: this.stateMachines });
  }
}

/** Grants and environment exactly as the catalogue declares them, and the queue it consumes. */
function bindDeclared(fn: ServiceFunction, def: FunctionDef, stateful: StatefulResources): ServiceFunction {
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
  return fn;
}
