/** One EventBridge rule per SCHEDULES entry, targeting the state machine or function it names. */
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule, type IRuleTarget } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { SCHEDULES, type FunctionName, type ScheduleDef, type StateMachineName } from '../../functions/resources.ts';

export interface SchedulesProps {
  readonly functions: Readonly<Record<FunctionName, IFunction>>;
  readonly stateMachines: Readonly<Record<StateMachineName, IStateMachine>>;
}

export class Schedules extends Construct {
  readonly rules: Readonly<Record<string, Rule>>;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    const rules: Record<string, Rule> = {};
    for (const [name, def] of Object.entries(SCHEDULES)) {
      rules[name] = new Rule(this, name, {
        description: `Runs ${name} every ${def.everyMinutes} minute(s)`,
        schedule: Schedule.rate(Duration.minutes(def.everyMinutes)),
        targets: [targetOf(def, props)],
      });
    }
    this.rules = rules;
  }
}

function targetOf(def: ScheduleDef, { functions, stateMachines }: SchedulesProps): IRuleTarget {
  return 'stateMachine' in def.target
    ? new SfnStateMachine(stateMachines[def.target.stateMachine])
    : new LambdaFunction(functions[def.target.function]);
}
