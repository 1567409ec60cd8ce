import { describe, it, expect } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { SCHEDULES, STATE_MACHINES } from '#functions/resources.ts';
import { logicalId, resolveJoin, synthesize } from './synth.ts';
import { assertValidStateMachines } from '#local/state-machines.ts';

const { service, serviceTemplate: template } = synthesize();
const timerSweep = service.stateMachines['timer-sweep'];

interface AslState {
  Type: string;
  Resource?: string;
  Parameters?: Record<string, string>;
  OutputPath?: string;
  Retry?: unknown[];
  Next?: string;
  Default?: string;
  Choices?: { Variable: string; BooleanEquals?: boolean; Next: string }[];
}

function definitionOf(machineLogicalId: string): { StartAt: string; States: Record<string, AslState>; QueryLanguage?: string } {
  const props = template.toJSON().Resources[machineLogicalId].Properties;
  return JSON.parse(resolveJoin(props.DefinitionString));
}

describe('state machines', () => {
  it('creates one state machine per catalogue entry', () => {
    // Prepare / Act / Assess
    template.resourceCountIs('AWS::StepFunctions::StateMachine', Object.keys(STATE_MACHINES).length);
  });

  it('runs timer-sweep as a standard workflow with tracing, ERROR logs and a 5 minute timeout', () => {
    // Prepare / Act
    const props = template.toJSON().Resources[logicalId(timerSweep)].Properties;

    // Assess
    expect(props).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ERROR' },
    });
    expect(definitionOf(logicalId(timerSweep))).toMatchObject({ TimeoutSeconds: 300 });
  });

  it('starts with a Sweep task that invokes the timer-sweep function and keeps its payload', () => {
    // Prepare
    const functionName = STATE_MACHINES['timer-sweep'].tasks.Sweep!;

    // Act
    const definition = definitionOf(logicalId(timerSweep));

    // Assess
    expect(definition.QueryLanguage).toBeUndefined();
    expect(definition.StartAt).toBe('Sweep');
    const sweep = definition.States.Sweep!;
    expect(sweep.Type).toBe('Task');
    expect(sweep.Resource).toBe('arn:aws:states:::lambda:invoke');
    expect(sweep.Parameters?.FunctionName).toBe(`arn:aws:lambda:us-east-1:123456789012:function:${logicalId(service.functions[functionName])}`);
    expect(sweep.OutputPath).toBe('$.Payload');
    expect(sweep.Retry?.length).toBeGreaterThan(0);
  });

  it('sweeps again while more timers are due and succeeds once drained', () => {
    // Prepare / Act
    const { States } = definitionOf(logicalId(timerSweep));

    // Assess
    expect(States.Sweep?.Next).toBe('MoreDue?');
    expect(States['MoreDue?']).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.more', BooleanEquals: true, Next: 'Sweep' }],
      Default: 'Drained',
    });
    expect(States.Drained).toEqual({ Type: 'Succeed' });
  });

  it('names each task function in its cdk path metadata, which the local cloud binds handlers by', () => {
    // Prepare
    const [stateId, functionName] = Object.entries(STATE_MACHINES['timer-sweep'].tasks)[0]!;
    const definition = definitionOf(logicalId(timerSweep));

    // Act
    const functionLogicalId = definition.States[stateId]!.Parameters!.FunctionName!.split(':').pop()!;
    const metadata = template.toJSON().Resources[functionLogicalId].Metadata;

    // Assess
    expect(metadata['aws:cdk:path']).toBe(`${Stack.of(timerSweep).stackName}/functions/${functionName}/Resource`);
  });

  it("synthesizes definitions asl-validator accepts, and the local cloud's synthesis refuses one it does not", async () => {
    // Prepare: the template, and a copy whose replay machine has a state of no known type.
    const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
    const replayId = Object.keys(json.Resources).find((id) => json.Resources[id]!.Type === 'AWS::StepFunctions::StateMachine' && /replay/i.test(id))!;
    const broken = structuredClone(json);
    broken.Resources[replayId]!.Properties!.DefinitionString = JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Bogus', End: true } } });

    // Act / Assess
    await expect(assertValidStateMachines(json)).resolves.toBeUndefined();
    await expect(assertValidStateMachines(broken)).rejects.toThrow(/^State machine replay is not valid ASL/);
  });
});

describe('schedules', () => {
  it('creates one EventBridge rule per catalogue schedule', () => {
    // Prepare / Act / Assess
    template.resourceCountIs('AWS::Events::Rule', Object.keys(SCHEDULES).length);
  });

  it('starts the timer-sweep state machine every minute', () => {
    // Prepare
    const machineId = logicalId(timerSweep);

    // Act / Assess
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { Ref: machineId }, RoleArn: Match.anyValue() })],
    });
  });
});
