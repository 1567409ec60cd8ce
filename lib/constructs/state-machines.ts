/**
 * One Step Functions state machine per STATE_MACHINES entry. The catalogue names each machine's
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
import { STATE_MACHINES, type FunctionName, type StateMachineName } from '../../functions/resources.ts';
import { mapRecord } from '../typed-records.ts';

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
    const moreDue = new Choice(scope, 'MoreDue?')
      .when(Condition.booleanEquals('$.more', true), sweep)
      .otherwise(drained);
    return sweep.next(moreDue);
  },
  // Every partition (retried twice), then the job completes as a whole; a partition that still
  // fails fails the job, whose Fail task removes what was written and announces the failure.
  export: (scope, task) => {
    const job = { account_id: JsonPath.stringAt('$.account_id'), job_id: JsonPath.stringAt('$.job_id') };
    const partition = task('ExportPartition').addRetry({ errors: [Errors.ALL], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 2 });
    const partitions = new MapState(scope, 'Partitions', {
      itemsPath: JsonPath.stringAt('$.partitions'),
      itemSelector: { job: JsonPath.objectAt('$.job'), partition: JsonPath.objectAt('$$.Map.Item.Value') },
      maxConcurrency: EXPORT_PARALLELISM,
      // Partitions record their files themselves; the Map's output would only grow the state.
      resultPath: JsonPath.DISCARD,
    }).itemProcessor(partition);
    const retried = { errors: [Errors.ALL], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 3 };
    const finish = task('Finish', TaskInput.fromObject({ ...job, outcome: 'completed' })).addRetry(retried);
    const fail = task('Fail', TaskInput.fromObject({ ...job, outcome: 'failed', error: JsonPath.objectAt('$.error') })).addRetry(retried)
      .next(new Fail(scope, 'JobFailed', { error: 'ExportFailed', cause: 'A partition could not be exported; the job is failed and its files removed.' }));
    partitions.addCatch(fail, { errors: [Errors.ALL], resultPath: '$.error' });
    return partitions.next(finish);
  },
  // The export's shape: every day of the window (retried twice), then the job completes or fails as a whole.
  replay: (scope, task) => {
    const job = { account_id: JsonPath.stringAt('$.account_id'), job_id: JsonPath.stringAt('$.job_id') };
    const day = task('ReplayPartition').addRetry({ errors: [Errors.ALL], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 2 });
    const days = new MapState(scope, 'Days', {
      itemsPath: JsonPath.stringAt('$.partitions'),
      itemSelector: { job: JsonPath.objectAt('$.job'), partition: JsonPath.objectAt('$$.Map.Item.Value') },
      maxConcurrency: REPLAY_PARALLELISM,
      resultPath: JsonPath.DISCARD,
    }).itemProcessor(day);
    const retried = { errors: [Errors.ALL], interval: Duration.seconds(2), backoffRate: 2, maxAttempts: 3 };
    const finish = task('FinishReplay', TaskInput.fromObject({ ...job, outcome: 'completed' })).addRetry(retried);
    const fail = task('FailReplay', TaskInput.fromObject({ ...job, outcome: 'failed', error: JsonPath.objectAt('$.error') })).addRetry(retried)
      .next(new Fail(scope, 'ReplayFailed', { error: 'ReplayFailed', cause: 'A day could not be replayed; the job is failed.' }));
    days.addCatch(fail, { errors: [Errors.ALL], resultPath: '$.error' });
    return days.next(finish);
  },
};

export interface StateMachinesProps {
  readonly functions: Readonly<Record<FunctionName, IFunction>>;
}

export class StateMachines extends Construct {
  readonly machines: Readonly<Record<StateMachineName, StateMachine>>;

  constructor(scope: Construct, id: string, { functions }: StateMachinesProps) {
    super(scope, id);
    this.machines = mapRecord(STATE_MACHINES, (name, def) => {
      // States are constructs; a scope per machine keeps state ids unique per machine only.
      const machineScope = new Construct(this, name);
      const made = new Set<string>();
      const task: TaskFactory = (stateId, payload) => {
        const fn = def.tasks[stateId];
        if (!fn) throw new Error(`State machine ${name}: task state ${stateId} is not in STATE_MACHINES`);
        made.add(stateId);
        return new LambdaInvoke(machineScope, stateId, {
          lambdaFunction: functions[fn],
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
    });
  }
}
