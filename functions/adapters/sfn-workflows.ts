/** Starts and stops executions of one state machine. The execution name is the caller's id, so a repeated start is one execution. */
import { ExecutionAlreadyExists, ExecutionDoesNotExist, type SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import type { Workflows } from '../ports/exports.ts';

export function sfnWorkflows<Input>(client: SFNClient, stateMachineArn: string): Workflows<Input> {
  const executionArn = (name: string) => `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
  return {
    async start(name, input) {
      try {
        await client.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
      } catch (error) {
        // Started before (a retried request): the execution already runs or ran.
        if (!(error instanceof ExecutionAlreadyExists)) throw error;
      }
    },
    async stop(name, cause) {
      try {
        await client.send(new StopExecutionCommand({ executionArn: executionArn(name), cause }));
      } catch (error) {
        if (!(error instanceof ExecutionDoesNotExist)) throw error;
      }
    },
  };
}
