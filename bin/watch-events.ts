/**
 * `npm run watch-events`: subscribes a local HTTPS receiver to every live event type with default
 * filters (watching the demo wallets) on a running local cloud, then prints each delivery as it
 * arrives, checks its signature, and after `--minutes` lists the types seen and not seen. It also
 * spends the key's local credits (a few hundred cheap requests) so a credit level is reached.
 *
 * Start the cloud with WEBHOOK_ALLOWED_TARGETS=127.0.0.1 first. Uses the Pro key by default (40
 * rules, 15 watched addresses).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { verifySignature } from '../functions/core/webhooks/signature.ts';
import { createDemoMarket } from '../functions/local/demo/market.ts';
import { localSettings } from '../functions/local/settings.ts';

const { values } = parseArgs({
  options: { key: { type: 'string', default: 'local-pro-key' }, minutes: { type: 'string', default: '20' }, base: { type: 'string' } },
});
const settings = localSettings();
const base = values.base ?? `http://127.0.0.1:${settings.PORT}`;
const tls = new URL('../functions/local/tls/', import.meta.url);

async function call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { 'X-API-Key': values.key!, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data: T; error?: string };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.error}`);
  return json.data;
}

let secret = '';
const seen = new Map<string, number>();
const server = createServer({ key: readFileSync(new URL('receiver-key.pem', tls)), cert: readFileSync(new URL('receiver.pem', tls)) }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const verdict = verifySignature(String(req.headers['svc-signature']), raw, [secret]);
    const event = JSON.parse(raw.toString('utf8')) as { type: string; data: Record<string, unknown>; late_ms?: number };
    seen.set(event.type, (seen.get(event.type) ?? 0) + 1);
    const what = event.data.symbol ?? event.data.account ?? event.data.address ?? event.data.state ?? '';
    console.log(
      `${new Date().toISOString()}  ${event.type.padEnd(26)} ${String(what).slice(0, 44).padEnd(44)} signature ${verdict.ok ? 'ok' : verdict.reason}`,
    );
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/events`;

const endpoint = await call<{ id: string; secret: string }>('POST', '/v1/webhooks/endpoints', { url, description: 'watch-events' });
secret = endpoint.secret;
const wallets = createDemoMarket({ seed: settings.DEMO_SEED, startMs: 1_767_225_600_000 }).wallets;
for (const wallet of wallets) await call('POST', '/v1/webhooks/addresses', { address: wallet.address, label: wallet.label });
const types = ((await call('GET', '/v1/webhooks/event-types')) as { type: string; live: boolean }[])
  .filter((t) => t.live && t.type !== 'webhook.test' && !t.type.startsWith('export.'))
  .map((t) => t.type);
for (const event_type of types) await call('POST', '/v1/webhooks/subscriptions', { endpoint_id: endpoint.id, event_type });
console.log(`Receiver ${url}; ${types.length} rules with default filters; watching ${wallets.length} demo wallets. Waiting ${values.minutes} minutes.\n`);

// Spend the key's credits (the local cloud gives each key LOCAL_MONTHLY_CREDITS a month) until a
// credit level is reached, so billing.credit_low shows up too. Each request costs at least 1 credit.
for (let i = 0; i < 1_000 && !seen.has('billing.credit_low'); i += 1) {
  await fetch(`${base}/v1/perpx/instruments/BTC`, { headers: { 'X-API-Key': values.key! } });
  if (i % 50 === 49) await new Promise((r) => setTimeout(r, 1_000));
}

await new Promise((r) => setTimeout(r, Number(values.minutes) * 60_000));
console.log(`\nSeen:     ${[...seen].map(([t, n]) => `${t} (${n})`).join(', ') || 'nothing'}`);
console.log(`Not seen: ${types.filter((t) => !seen.has(t)).join(', ') || 'none'}`);
await call('DELETE', `/v1/webhooks/endpoints/${endpoint.id}`);
server.close();
