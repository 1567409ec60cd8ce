/**
 * The emulators in a process of their own (see scratch-emulators.ts `ownProcess`), as AWS's
 * services are to a function: their request handling, JSON and file work do not share the
 * caller's event loop or heap, so a read measured against them is measured as in the service.
 * Parent -> child: `{ start: { dataDir } }`, then `stop`. Child -> parent: `{ ready }` with the
 * endpoints and names, or `{ failed }`.
 */
import { startEmulators, type Emulators } from './emulators.ts';

export type EmulatorProcessMessage = { ready: Pick<Emulators, 'endpoints' | 'names'> } | { failed: string };

const tell = (message: EmulatorProcessMessage) => process.send?.(message);
let running: Promise<Emulators> | undefined;
const stop = () => void (running ?? Promise.resolve(undefined)).then((e) => e?.stop()).finally(() => process.exit(0));

process.on('message', (message: { start: { dataDir: string } } | 'stop') => {
  if (message === 'stop') return stop();
  running = startEmulators({ dataDir: message.start.dataDir });
  running.then(
    ({ endpoints, names }) => tell({ ready: { endpoints, names } }),
    (error: unknown) => tell({ failed: String(error instanceof Error ? error.stack : error) }),
  );
});
process.on('disconnect', stop);
