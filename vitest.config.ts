import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import WaitsFirstLocalCloudsLast from './test/helpers/sequencer.ts';

// Webhook receivers in tests serve the local CA's certificate (functions/local/tls). Node reads
// NODE_EXTRA_CA_CERTS only at start-up, so it is set here, before the worker processes are forked.
process.env.NODE_EXTRA_CA_CERTS = fileURLToPath(new URL('./functions/local/tls/ca.pem', import.meta.url));

export default defineConfig({
  test: {
    // Tests and hooks wait for conditions; their bounds are against a hang, never against a
    // slow machine (a loaded machine makes the run slower, not red).
    testTimeout: 10 * 60_000,
    reporters: ['default', './test/helpers/slowest-files.ts'],
    // The run's fixtures (the stack's template, the demo archive) are made once, in the background.
    globalSetup: ['./test/helpers/global-setup.ts'],
    setupFiles: ['./test/helpers/file-cpu.ts'],
    sequence: { sequencer: WaitsFirstLocalCloudsLast },
    // Hooks start local clouds and may wait for the run's fixtures (template, demo archive).
    hookTimeout: 10 * 60_000,
    // Integration and e2e files start their own emulators. Three files at a time on two cores: the
    // files that mostly wait (the delivery ladder, the fault suite: a minute or more each with a few
    // seconds of CPU) then hold a worker without idling a core. Clean clones back to back: 409 s
    // with two workers, 366 s with three (when the waits were shorter, a third worker only added CPU).
    pool: 'forks',
    maxWorkers: 3,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_TRACE_ENABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      // Handlers called without a local cloud (which makes its own) seal cursors with this ring.
      CURSOR_KEYS: JSON.stringify({ test1: 'a test cursor key, long enough to be one' }),
    },
    projects: [
      // Unit files share a worker process (and its imported modules) one after another: each of the
      // 55 is a fraction of a second of work, and a process of its own cost it as much again to
      // start and import. They set no state another reads (the few that touch the environment or a
      // stream restore it).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      { extends: true, test: { name: 'service', include: ['test/**/*.test.ts', 'clients/*/test/**/*.test.ts'], exclude: ['test/unit/**'] } },
    ],
  },
});
