/**
 * The Step Functions API for the local cloud: StartExecution, StopExecution and DescribeExecution
 * over the service's own protocol (AWS JSON 1.0 on POST /, the operation in X-Amz-Target), so the
 * functions that start machines use the AWS SDK's SFNClient here as in AWS
 * (AWS_ENDPOINT_URL_SFN). Executions run in this process with aws-local-stepfunctions.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STATE_MACHINES, type StateMachineName } from '../resources.ts';
import type { LocalStateMachines } from './state-machines.ts';
import { LOCAL_REGION } from './emulators.ts';

const ACCOUNT = '000000000000';

/** The ARN the local cloud gives a catalogue state machine (its functions get it as STATE_MACHINES[name].envVar). */
export const localStateMachineArn = (name: StateMachineName) => `arn:aws:states:${LOCAL_REGION}:${ACCOUNT}:stateMachine:${name}`;

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED' | 'TIMED_OUT';

interface Execution {
  arn: string;
  machineArn: string;
  name: string;
  input: string;
  status: Status;
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  abort(): void;
}

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StepFunctionsServer {
  endpoint: string;
  executions(): readonly Execution[];
  stop(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function startStepFunctionsServer(machines: LocalStateMachines, onError: (arn: string, error: unknown) => void): Promise<StepFunctionsServer> {
  const byArn = new Map<string, Execution>();
  const machineNameOf = (arn: unknown) => (Object.keys(STATE_MACHINES) as StateMachineName[]).find((n) => localStateMachineArn(n) === arn);
  const seconds = (ms: number) => ms / 1000;

  const operations: Record<string, (input: Record<string, unknown>) => unknown> = {
    StartExecution(input) {
      const name = machineNameOf(input.stateMachineArn);
      if (!name) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${String(input.stateMachineArn)}'`);
      const executionName = typeof input.name === 'string' ? input.name : crypto.randomUUID();
      const arn = `${String(input.stateMachineArn).replace(':stateMachine:', ':execution:')}:${executionName}`;
      const text = typeof input.input === 'string' ? input.input : '{}';
      const existing = byArn.get(arn);
      if (existing) {
        // As in AWS: the same name with the same input is the same execution.
        if (existing.input === text && existing.status === 'RUNNING') return { executionArn: arn, startDate: seconds(existing.startDate) };
        throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
      }
      // Ended executions are described for a day, then forgotten (a long-running local cloud stays bounded).
      for (const [ended, { stopDate }] of byArn) if (stopDate !== undefined && Date.now() - stopDate > 86_400_000) byArn.delete(ended);
      const running = machines.start(name, JSON.parse(text));
      const execution: Execution = {
        arn,
        machineArn: String(input.stateMachineArn),
        name: executionName,
        input: text,
        status: 'RUNNING',
        startDate: Date.now(),
        abort: running.abort,
      };
      byArn.set(arn, execution);
      running.result.then(
        (output) => {
          if (execution.status === 'RUNNING') Object.assign(execution, { status: 'SUCCEEDED', output: JSON.stringify(output), stopDate: Date.now() });
        },
        (error: unknown) => {
          if (execution.status !== 'RUNNING') return;
          Object.assign(execution, { status: 'FAILED', error: error instanceof Error ? error.message : String(error), stopDate: Date.now() });
          onError(arn, error);
        },
      );
      return { executionArn: arn, startDate: seconds(execution.startDate) };
    },
    StopExecution(input) {
      const execution = byArn.get(String(input.executionArn));
      if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(input.executionArn)}'`);
      if (execution.status === 'RUNNING') {
        Object.assign(execution, { status: 'ABORTED', stopDate: Date.now(), error: typeof input.cause === 'string' ? input.cause : undefined });
        execution.abort();
      }
      return { stopDate: seconds(execution.stopDate ?? Date.now()) };
    },
    DescribeExecution(input) {
      const execution = byArn.get(String(input.executionArn));
      if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${String(input.executionArn)}'`);
      return {
        executionArn: execution.arn,
        stateMachineArn: execution.machineArn,
        name: execution.name,
        status: execution.status,
        input: execution.input,
        startDate: seconds(execution.startDate),
        ...(execution.stopDate !== undefined && { stopDate: seconds(execution.stopDate) }),
        ...(execution.output !== undefined && { output: execution.output }),
        ...(execution.error !== undefined && { cause: execution.error }),
      };
    },
  };

  const respond = (response: ServerResponse, status: number, body: unknown, errorType?: string) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...(errorType && { 'x-amzn-errortype': errorType }) });
    response.end(JSON.stringify(body));
  };
  const server = createServer((request, response) => {
    const operation = String(request.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '');
    const handle = operations[operation];
    bodyOf(request)
      .then((input) => {
        if (!handle) throw new ServiceError('UnknownOperationException', `The local Step Functions server does not implement ${operation || 'this operation'}`);
        respond(response, 200, handle(input));
      })
      .catch((error: unknown) => {
        if (error instanceof ServiceError) respond(response, 400, { __type: error.type, message: error.message }, error.type);
        else respond(response, 500, { __type: 'InternalFailure', message: error instanceof Error ? error.message : String(error) }, 'InternalFailure');
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    executions: () => [...byArn.values()],
    async stop() {
      for (const execution of byArn.values()) if (execution.status === 'RUNNING') execution.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
