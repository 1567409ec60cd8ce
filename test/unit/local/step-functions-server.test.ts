/**
 * The local cloud's Step Functions API, called with the AWS SDK's own client as the functions call
 * it: executions started once per name, stopped, described, and the service's error types.
 */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localStateMachineArn, startStepFunctionsServer, type StepFunctionsServer } from '#local/step-functions-server.ts';
import type { LocalExecution, LocalStateMachines } from '#local/state-machines.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { eventually } from '#test/helpers/api.ts';

/** A runner double: each execution ends when the test says so. */
const started: { input: unknown; finish: (output: unknown) => void; aborted: boolean }[] = [];
const machines: LocalStateMachines = {
  run: () => Promise.reject(new Error('not used')),
  start(_name, input): LocalExecution {
    let finish!: (output: unknown) => void;
    let fail!: (error: Error) => void;
    const result = new Promise<unknown>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    const entry = { input, finish, aborted: false };
    started.push(entry);
    return {
      result,
      abort: () => {
        entry.aborted = true;
        fail(new Error('aborted'));
      },
    };
  },
};

let server: StepFunctionsServer;
let client: SFNClient;
const arn = localStateMachineArn('export');

beforeAll(async () => {
  server = await startStepFunctionsServer(machines, () => undefined);
  client = new SFNClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: server.endpoint });
});
afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

const describeExecution = (executionArn: string) => client.send(new DescribeExecutionCommand({ executionArn }));

describe('the local Step Functions API', () => {
  it('starts one execution per name and input, refuses the name with another input, and describes it to the end', async () => {
    const first = await client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'job-1', input: '{"a":1}' }));
    const again = await client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'job-1', input: '{"a":1}' }));
    expect(again.executionArn).toBe(first.executionArn);
    expect(first.executionArn).toBe(`${arn.replace(':stateMachine:', ':execution:')}:job-1`);
    expect(started).toHaveLength(1);
    await expect(client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'job-1', input: '{"a":2}' }))).rejects.toBeInstanceOf(
      ExecutionAlreadyExists,
    );
    expect((await describeExecution(first.executionArn!)).status).toBe('RUNNING');
    started[0]!.finish({ done: true });
    const done = await eventually(
      () => describeExecution(first.executionArn!),
      (d) => d.status !== 'RUNNING',
    );
    expect(done).toMatchObject({ status: 'SUCCEEDED', output: '{"done":true}', name: 'job-1', input: '{"a":1}' });
  });

  it('stops a running execution, aborting its run', async () => {
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'job-2', input: '{}' }));
    await client.send(new StopExecutionCommand({ executionArn, cause: 'canceled' }));
    expect(started.at(-1)!.aborted).toBe(true);
    expect((await describeExecution(executionArn!)).status).toBe('ABORTED');
  });

  it("answers the service's error types for unknown machines and executions", async () => {
    await expect(client.send(new StartExecutionCommand({ stateMachineArn: `${arn}-nope`, name: 'x', input: '{}' }))).rejects.toBeInstanceOf(
      StateMachineDoesNotExist,
    );
    await expect(client.send(new StopExecutionCommand({ executionArn: `${arn}:nope` }))).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });
});
