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
  LogLevel,
  StateMachine,
  StateMachineType,
  Succeed,
  type IChainable,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { STATE_MACHINES, type FunctionName, type StateMachineName } from '../../functions/resources.ts';
import { mapRecord } from '../typed-records.ts';

/** A machine's flow, given its task states in catalogue order. */
type Flow = (scope: Construct, tasks: readonly LambdaInvoke[]) => IChainable;

/** Typed by StateMachineName, so a catalogue entry without a flow does not compile. */
const FLOWS: Readonly<Record<StateMachineName, Flow>> = {
  // Sweep until the function reports nothing more due; the machine timeout bounds a runaway loop.
  'timer-sweep': (scope, tasks) => {
    const sweep = singleTask(tasks, 'timer-sweep');
    const drained = new Succeed(scope, 'Drained');
    const moreDue = new Choice(scope, 'MoreDue?')
      .when(Condition.booleanEquals('$.more', true), sweep)
      .otherwise(drained);
    return sweep.next(moreDue);
  },
};

function singleTask(tasks: readonly LambdaInvoke[], machine: string): LambdaInvoke {
  const [task] = tasks;
  if (!task || tasks.length !== 1) throw new Error(`State machine ${machine} expects exactly 1 task in STATE_MACHINES, got ${tasks.length}`);
  return task;
}

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
      const tasks = Object.entries(def.tasks).map(
        ([stateId, fn]) =>
          new LambdaInvoke(machineScope, stateId, {
            lambdaFunction: functions[fn],
            // Keep the invoke envelope so `outputPath` (and the local runner) see `$.Payload`.
            payloadResponseOnly: false,
            outputPath: '$.Payload',
          }),
      );
      return new StateMachine(machineScope, 'Resource', {
        comment: def.description,
        stateMachineType: StateMachineType.STANDARD,
        definitionBody: DefinitionBody.fromChainable(FLOWS[name](machineScope, tasks)),
        timeout: Duration.minutes(5),
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
