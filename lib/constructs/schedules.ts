/** One EventBridge rule per SCHEDULES entry named, targeting the state machine or function it names. */
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule, type IRuleTarget } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { SCHEDULES, type FunctionName, type ScheduleDef, type StateMachineName } from '#functions/resources.ts';

export interface SchedulesProps {
  readonly names: readonly string[];
  /** The targets of those schedules. */
  readonly functions: Readonly<Partial<Record<FunctionName, IFunction>>>;
  readonly stateMachines: Readonly<Partial<Record<StateMachineName, IStateMachine>>>;
}

export class Schedules extends Construct {
  readonly rules: Readonly<Record<string, Rule>>;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    const rules: Record<string, Rule> = {};
    for (const name of props.names) {
      const def = SCHEDULES[name]!;
      rules[name] = new Rule(this, name, {
        description: `Runs ${name} every ${def.everyMinutes} minute(s)`,
        schedule: Schedule.rate(Duration.minutes(def.everyMinutes)),
        targets: [targetOf(name, def, props)],
      });
    }
    this.rules = rules;
  }
}

function targetOf(name: string, def: ScheduleDef, { functions, stateMachines }: SchedulesProps): IRuleTarget {
  if ('stateMachine' in def.target) {
    const machine = stateMachines[def.target.stateMachine];
    if (machine) return new SfnStateMachine(machine);
  } else {
    const fn = functions[def.target.function];
    if (fn) return new LambdaFunction(fn);
  }
  throw new Error(`Schedule ${name}: its target is not in its stack`);
}
