/**
 * One Step Functions state machine per STATE_MACHINES entry named. The catalogue names each machine's
 * task states and their functions; this file gives each machine its flow. The local cloud runs the
 * synthesized definition with aws-local-stepfunctions, binding handlers by the same task state ids,
 * so definitions stay in JSONPath (it silently ignores JSONata).
 */
import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  Choice,
  Condition,
  DefinitionBody,
  Errors,
  Fail,
  JsonPath,
  LogLevel,
  Map as MapState,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  type IChainable,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { STATE_MACHINES, type FunctionName, type StateMachineName } from '#functions/resources.ts';
import type { ExportPartitionTask, JobFinishTask, ReplayPartitionTask } from '#schemas/messages.ts';

/** The members of the payloads a partitioned job's tasks parse (schemas/messages.ts), each made here from JSONPath. */
type PayloadOf<T> = Record<keyof T, unknown>;
type PartitionPayload = PayloadOf<ExportPartitionTask | ReplayPartitionTask>;

/** Makes the catalogue's task state `stateId`, with the payload it sends (default: the state's input). */
type TaskFactory = (stateId: string, payload?: TaskInput) => LambdaInvoke;

/** A machine's flow, built from its catalogue task states. */
type Flow = (scope: Construct, task: TaskFactory) => IChainable;

/** How many partitions of one export job run at once. */
const EXPORT_PARALLELISM = 8;
/** How many days of one replay job run at once (each is a DuckDB scan; deliveries keep time order within a day only). */
const REPLAY_PARALLELISM = 4;

/** Typed by StateMachineName, so a catalogue entry without a flow does not compile. */
const FLOWS: Readonly<Record<StateMachineName, Flow>> = {
  // Sweep until the function reports nothing more due; the machine timeout bounds a runaway loop.
  'timer-sweep': (scope, task) => {
    const sweep = task('Sweep');
    const drained = new Succeed(scope, 'Drained');
    const moreDue = new Choice(scope, 'MoreDue?').when(Condition.booleanEquals('$.more', true), sweep).otherwise(drained);
    return sweep.next(moreDue);
  },
  // Every partition (retried twice), then the job completes as a whole; a partition that still
  // fails fails the job, whose Fail task removes what was written and announces the failure.
  export: (scope, task) =>
    partitionedJob(scope, task, {
      partition: 'ExportPartition',
      map: 'Partitions',
      parallelism: EXPORT_PARALLELISM,
      finish: 'Finish',
      fail: 'Fail',
      failed: { state: 'JobFailed', error: 'ExportFailed', cause: 'A partition could not be exported; the job is failed and its files removed.' },
    }),
  // The export's shape: every day of the window (retried twice), then the job completes or fails as a whole.
  replay: (scope, task) =>
    partitionedJob(scope, task, {
      partition: 'ReplayPartition',
      map: 'Days',
      parallelism: REPLAY_PARALLELISM,
      finish: 'FinishReplay',
      fail: 'FailReplay',
      failed: { state: 'ReplayFailed', error: 'ReplayFailed', cause: 'A day could not be replayed; the job is failed.' },
    }),
};

/** State names of a partitioned job: its partition task, the Map over `$.partitions`, the closing tasks and the Fail state. */
interface PartitionedJobStates {
  partition: string;
  map: string;
  parallelism: number;
  finish: string;
  fail: string;
  failed: { state: string; error: string; cause: string };
}

/**
 * A job of partitions (export, replay): a Map over `$.partitions`, each item its job and partition,
 * the partition task retried twice; then the finish task, or, caught from the Map, the fail task
 * (with the error) and a Fail state. Partitions record their own results: the Map's output would
 * only grow the state.
 */
function partitionedJob(scope: Construct, task: TaskFactory, states: PartitionedJobStates): IChainable {
  const job = { account_id: JsonPath.stringAt('$.account_id'), job_id: JsonPath.stringAt('$.job_id') } satisfies Partial<PayloadOf<JobFinishTask>>;
  const partition = task(states.partition).addRetry({ errors: [Errors.ALL], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 2 });
  const partitions = new MapState(scope, states.map, {
    itemsPath: JsonPath.stringAt('$.partitions'),
    itemSelector: { job: JsonPath.objectAt('$.job'), partition: JsonPath.objectAt('$$.Map.Item.Value') } satisfies PartitionPayload,
    maxConcurrency: states.parallelism,
    resultPath: JsonPath.DISCARD,
  }).itemProcessor(partition);
  const retried = { errors: [Errors.ALL], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 3 };
  const finish = task(states.finish, TaskInput.fromObject({ ...job, outcome: 'completed' } satisfies Omit<PayloadOf<JobFinishTask>, 'error'>)).addRetry(
    retried,
  );
  const fail = task(states.fail, TaskInput.fromObject({ ...job, outcome: 'failed', error: JsonPath.objectAt('$.error') } satisfies PayloadOf<JobFinishTask>))
    .addRetry(retried)
    .next(new Fail(scope, states.failed.state, { error: states.failed.error, cause: states.failed.cause }));
  partitions.addCatch(fail, { errors: [Errors.ALL], resultPath: '$.error' });
  return partitions.next(finish);
}

export interface StateMachinesProps {
  readonly names: readonly StateMachineName[];
  /** The task functions of those machines. */
  readonly functions: Readonly<Partial<Record<FunctionName, IFunction>>>;
}

export class StateMachines extends Construct {
  readonly machines: Readonly<Partial<Record<StateMachineName, StateMachine>>>;

  constructor(scope: Construct, id: string, { names, functions }: StateMachinesProps) {
    super(scope, id);
    this.machines = Object.fromEntries(names.map((name) => [name, this.machine(name, functions)]));
  }

  private machine(name: StateMachineName, functions: StateMachinesProps['functions']): StateMachine {
    const def = STATE_MACHINES[name];
    // States are constructs; a scope per machine keeps state ids unique per machine only.
    const machineScope = new Construct(this, name);
    const made = new Set<string>();
    const task: TaskFactory = (stateId, payload) => {
      const fn = def.tasks[stateId];
      if (!fn) throw new Error(`State machine ${name}: task state ${stateId} is not in STATE_MACHINES`);
      const lambdaFunction = functions[fn];
      if (!lambdaFunction) throw new Error(`State machine ${name}: task function ${fn} is not in its stack`);
      made.add(stateId);
      return new LambdaInvoke(machineScope, stateId, {
        lambdaFunction,
        ...(payload && { payload }),
        // Keep the invoke envelope so `outputPath` (and the local runner) see `$.Payload`.
        payloadResponseOnly: false,
        outputPath: '$.Payload',
      });
    };
    const flow = FLOWS[name](machineScope, task);
    const unused = Object.keys(def.tasks).filter((stateId) => !made.has(stateId));
    if (unused.length) throw new Error(`State machine ${name}: catalogue task states [${unused.join(', ')}] are not in its flow`);
    return new StateMachine(machineScope, 'Resource', {
      comment: def.description,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(flow),
      timeout: Duration.minutes(def.timeoutMinutes),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(machineScope, 'logs', { retention: RetentionDays.ONE_MONTH }),
        level: LogLevel.ERROR,
        includeExecutionData: true,
      },
    });
  }
}
