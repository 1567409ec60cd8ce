/** The function sandbox's process (see sandbox.ts): runs each call it is sent with the deployed handler, as Lambda would. */
import { invoke } from './invoke.ts';
import type { SandboxAnswer, SandboxCall } from './sandbox.ts';

const answer = (message: SandboxAnswer) => process.send?.(message);

process.on('message', (call: SandboxCall) => {
  invoke(call.name, call.event).then(
    (result) => answer({ id: call.id, result }),
    (error: unknown) => {
      const { name = 'Error', message = String(error), stack } = error instanceof Error ? error : {};
      answer({ id: call.id, error: { name, message, stack } });
    },
  );
});
// The parent's end is the sandbox's end (a Lambda sandbox never outlives its service).
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
