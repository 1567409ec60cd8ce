/**
 * Runs a command with the local webhook receivers' CA trusted (functions/local/tls/ca.pem), on top
 * of any CA file NODE_EXTRA_CA_CERTS already names: Node reads that variable once at start-up and
 * takes a single file, so the two are joined into one bundle first.
 *
 *   node bin/with-local-ca.mjs tsx bin/local.ts
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const localCa = fileURLToPath(new URL('../functions/local/tls/ca.pem', import.meta.url));
const existing = process.env.NODE_EXTRA_CA_CERTS;
let bundle = localCa;
if (existing && existing !== localCa) {
  bundle = join(tmpdir(), `market-archive-ca-bundle-${process.pid}.pem`);
  writeFileSync(bundle, `${readFileSync(existing, 'utf8')}\n${readFileSync(localCa, 'utf8')}`);
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node bin/with-local-ca.mjs <command> [args...]');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, NODE_EXTRA_CA_CERTS: bundle } });
// Ctrl-C reaches the child too (same process group); wait for it to finish its clean stop.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
