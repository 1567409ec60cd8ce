import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpsSender } from '#adapters/https-sender.ts';
import { validateDestination, type ResolveHost } from '#core/webhooks/ssrf.ts';

const tlsDir = new URL('../../functions/local/tls/', import.meta.url);
const key = readFileSync(new URL('receiver-key.pem', tlsDir));
const cert = readFileSync(new URL('receiver.pem', tlsDir));

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
interface Receiver {
  port: number;
  requests: Received[];
  closed: Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
});

/** A real HTTPS receiver on 127.0.0.1; `handle` runs once the request body has arrived. */
async function startReceiver(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const requests: Received[] = [];
  let markClosed!: () => void;
  const closed = new Promise<void>((done) => {
    markClosed = done;
  });
  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      handle(req, res);
    });
    res.on('close', markClosed);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as AddressInfo).port, requests, closed };
}

const noDns: ResolveHost = async () => {
  throw new Error('resolver must not be called');
};
const loopbackAllowed = { resolve: noDns, allowHosts: ['127.0.0.1', 'localhost'] };
const post = (url: string) => ({ url, body: '{"type":"ping","n":1}', headers: { 'x-signature': 't=1,v1=abc' } });

/** A resolver that answers from a script, one answer per call (the last one repeats). */
function scriptedResolver(...answers: string[][]): ResolveHost & { calls: number } {
  const resolver: ResolveHost & { calls: number } = Object.assign(async (_host: string) => answers[Math.min(resolver.calls++, answers.length - 1)]!, {
    calls: 0,
  });
  return resolver;
}

describe('https sender: answers', () => {
  it('delivers the exact body and headers and reports a 200 as ok', async () => {
    // Prepare
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end('thanks'));
    const send = createHttpsSender(loopbackAllowed);
    const request = {
      url: `https://127.0.0.1:${receiver.port}/hooks/in?x=1`,
      body: '{"type":"ping","π":"✓"}',
      headers: { 'x-signature': 't=1,v1=abc', 'x-event-id': 'evt_1' },
    };
    // Act
    const outcome = await send(request);
    // Assess
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null, remoteAddress: '127.0.0.1' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    const [got] = receiver.requests;
    expect(got!.path).toBe('/hooks/in?x=1');
    expect(got!.body.equals(Buffer.from(request.body, 'utf8'))).toBe(true);
    expect(got!.headers).toMatchObject({
      'x-signature': 't=1,v1=abc',
      'x-event-id': 'evt_1',
      'content-type': 'application/json',
      'user-agent': 'market-archive-webhooks/1',
      'content-length': String(Buffer.byteLength(request.body)),
      host: `127.0.0.1:${receiver.port}`,
    });
  });

  it('reports a 500 as a failure with its status', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end('boom'));
    const outcome = await createHttpsSender(loopbackAllowed)(post(`https://127.0.0.1:${receiver.port}/`));
    expect(outcome).toMatchObject({ ok: false, statusCode: 500, error: 'receiver returned 500' });
  });

  it('does not follow a redirect', async () => {
    // Prepare: the first path redirects to a second path on the same receiver.
    const receiver = await startReceiver((req, res) => {
      if (req.url === '/first') res.writeHead(308, { location: '/second' }).end();
      else res.writeHead(200).end();
    });
    // Act
    const outcome = await createHttpsSender(loopbackAllowed)(post(`https://127.0.0.1:${receiver.port}/first`));
    // Assess
    expect(outcome).toMatchObject({ ok: false, statusCode: 308, error: 'receiver answered 308; redirects are not followed' });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/first']);
  });
});

describe('https sender: kept-alive connections', () => {
  it('sends a burst to one receiver over one connection, and a 500 does not poison the pool', async () => {
    // Prepare
    let connections = 0;
    let n = 0;
    const receiver = await startReceiver((_req, res) => res.writeHead(n++ === 1 ? 500 : 200).end('ok'));
    servers.at(-1)!.on('secureConnection', () => {
      connections++;
    });
    const send = createHttpsSender(loopbackAllowed);
    // Act
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await send(post(`https://127.0.0.1:${receiver.port}/`)));
    // Assess: the failed answer's socket is dropped, so two connections carry five requests.
    expect(outcomes.map((o) => o.statusCode)).toEqual([200, 500, 200, 200, 200]);
    expect(outcomes.every((o) => o.remoteAddress === '127.0.0.1')).toBe(true);
    expect(receiver.requests).toHaveLength(5);
    expect(connections).toBe(2);
  });

  it('sends again on a new connection when the receiver resets a kept-alive one before answering', async () => {
    // Prepare: the receiver answers the first request on a connection and resets the connection under the second.
    const served = new WeakMap<object, number>();
    const receiver = await startReceiver((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count > 1) req.socket.destroy();
      else res.writeHead(200).end('ok');
    });
    const send = createHttpsSender(loopbackAllowed);
    // Act
    const first = await send(post(`https://127.0.0.1:${receiver.port}/`));
    const second = await send(post(`https://127.0.0.1:${receiver.port}/`));
    // Assess
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(receiver.requests).toHaveLength(3);
  });
});

describe('https sender: budget and body cap', () => {
  it('times out when the receiver never answers', async () => {
    const receiver = await startReceiver(() => {
      /* never answers */
    });
    const outcome = await createHttpsSender({ ...loopbackAllowed, timeoutMs: 400 })(post(`https://127.0.0.1:${receiver.port}/`));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 400 ms' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('fails a 200 whose body trickles in slower than the budget', async () => {
    // Prepare: headers at once, then one byte every 100 ms of a 100-byte body.
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      const drip = setInterval(() => res.write('x'), 100);
      res.on('close', () => clearInterval(drip));
    });
    // Act
    const outcome = await createHttpsSender({ ...loopbackAllowed, timeoutMs: 500 })(post(`https://127.0.0.1:${receiver.port}/`));
    // Assess
    expect(outcome).toMatchObject({ ok: false, statusCode: 200, error: 'timed out after 500 ms' });
  });

  it('counts a 2xx as ok once the cap is read and drops the rest of a 1 MB body', async () => {
    // Prepare: a 1 MB body is announced but only 64 KB is sent until the client hangs up, so a
    // sender that read past the cap would wait for the rest and time out.
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-length': String(1024 * 1024) });
      res.write(Buffer.alloc(64 * 1024, 'a'));
    });
    // Act
    const outcome = await createHttpsSender({ ...loopbackAllowed, timeoutMs: 2_000, maxResponseBytes: 8_192 })(post(`https://127.0.0.1:${receiver.port}/`));
    // Assess: ok within the budget, and the receiver saw the connection dropped.
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null });
    await receiver.closed;
  });

  it('stops reading an endless 2xx body at the cap', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      const flood = setInterval(() => res.write(Buffer.alloc(16 * 1024, 'z')), 5);
      res.on('close', () => clearInterval(flood));
    });
    const outcome = await createHttpsSender({ ...loopbackAllowed, timeoutMs: 2_000 })(post(`https://127.0.0.1:${receiver.port}/`));
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null });
    await receiver.closed;
  });
});

describe('https sender: network and TLS failures', () => {
  it('reports a port with nothing listening as connection refused', async () => {
    // Prepare: take a free port, then release it.
    const probe = createNetServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const { port } = probe.address() as AddressInfo;
    await new Promise((done) => probe.close(done));
    // Act
    const outcome = await createHttpsSender(loopbackAllowed)(post(`https://127.0.0.1:${port}/`));
    // Assess
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'connection refused', remoteAddress: null });
  });

  it('verifies the certificate against the URL host even when the host is allow-listed', async () => {
    // Prepare: the fixture certificate covers localhost, not receiver.test.
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const send = createHttpsSender({ resolve: scriptedResolver(['127.0.0.1']), allowHosts: ['receiver.test'] });
    // Act
    const outcome = await send(post(`https://receiver.test:${receiver.port}/`));
    // Assess
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/^TLS error: /);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('https sender: destination guard at connect time', () => {
  it('refuses a loopback IP literal that is not allow-listed without connecting', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const send = createHttpsSender({ resolve: noDns });
    const v4 = await send(post(`https://127.0.0.1:${receiver.port}/`));
    const v6 = await send(post(`https://[::1]:${receiver.port}/`));
    expect(v4).toMatchObject({ ok: false, statusCode: null, remoteAddress: null });
    expect(v4.error).toMatch(/^destination refused: URL host 127\.0\.0\.1 is a loopback address/);
    expect(v6.error).toMatch(/^destination refused: URL host ::1 is the loopback address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a name that rebinds to loopback after passing the creation check', async () => {
    // Prepare: the first answer (at creation) is public, the second (at send) is loopback.
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const resolve = scriptedResolver(['93.184.216.34'], ['127.0.0.1']);
    const url = `https://hooks.example.com:${receiver.port}/hook`;
    await expect(validateDestination(url, resolve)).resolves.toMatchObject({ ok: true, addresses: ['93.184.216.34'] });
    // Act
    const outcome = await createHttpsSender({ resolve })(post(url));
    // Assess
    expect(resolve.calls).toBe(2);
    expect(outcome).toMatchObject({ ok: false, statusCode: null, remoteAddress: null });
    expect(outcome.error).toBe('destination refused: URL host resolves to a loopback address (127.0.0.0/8)');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a name with one public and one private address', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const send = createHttpsSender({ resolve: scriptedResolver(['93.184.216.34', '10.0.0.7']) });
    const outcome = await send(post(`https://hooks.example.com:${receiver.port}/`));
    expect(outcome.error).toBe('destination refused: URL host resolves to a private address (10.0.0.0/8)');
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a name that does not resolve', async () => {
    const outcome = await createHttpsSender({ resolve: scriptedResolver([]) })(post('https://gone.example.com/'));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'destination refused: URL host does not resolve' });
  });

  it('refuses an internal name before asking DNS', async () => {
    const resolve = scriptedResolver(['93.184.216.34']);
    const outcome = await createHttpsSender({ resolve })(post('https://localhost/'));
    expect(outcome.error).toBe('destination refused: URL host must be a public name, not localhost');
    expect(resolve.calls).toBe(0);
  });

  it('reaches an allow-listed name through the resolver and dials the address it returned', async () => {
    // Prepare
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const resolve = scriptedResolver(['127.0.0.1']);
    // Act
    const outcome = await createHttpsSender({ resolve, allowHosts: ['localhost'] })(post(`https://localhost:${receiver.port}/hook`));
    // Assess
    expect(outcome).toMatchObject({ ok: true, statusCode: 204, error: null, remoteAddress: '127.0.0.1' });
    expect(resolve.calls).toBe(1);
    expect(receiver.requests[0]?.headers.host).toBe(`localhost:${receiver.port}`);
  });

  it('refuses plain http without connecting', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const outcome = await createHttpsSender(loopbackAllowed)(post(`http://127.0.0.1:${receiver.port}/`));
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'destination refused: URL must use https', remoteAddress: null });
    expect(receiver.requests).toHaveLength(0);
  });
});
