/**
 * `npm test`: the type check, Biome's linter and formatter check (`biome check`) and the suite at
 * once. tsc is one thread for about 10 s and the suite spends its first seconds starting workers and
 * the fixtures process; run before the suite, the type check was wall time of its own. Fails when
 * any fails; arguments go to vitest.
 */
import { spawn } from 'node:child_process';

const run = (command, args) =>
  new Promise((resolve) => {
    spawn(command, args, { stdio: 'inherit' })
      .on('error', (error) => {
        console.error(`${command}: ${error.message}`);
        resolve(1);
      })
      .on('exit', (code) => resolve(code ?? 1));
  });

const [typecheck, lint, suite] = await Promise.all([
  run('tsc', ['-p', '.', '--noEmit']),
  run('biome', ['check', '--error-on-warnings', '.']),
  run('vitest', ['run', ...process.argv.slice(2)]),
]);
if (typecheck !== 0) console.error('\nThe type check failed (tsc -p . --noEmit): see its errors above.');
if (lint !== 0) console.error('\nThe linter or the formatter failed (npm run lint; npm run format rewrites the files): see above.');
process.exit(typecheck || lint || suite);
