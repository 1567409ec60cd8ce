/**
 * A webhook receiver for tests and benchmarks: real HTTPS on 127.0.0.1 with the local CA's
 * certificate (trusted through NODE_EXTRA_CA_CERTS), recording every request it is sent. What it
 * answers is programmable per request; the default is 200.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const TLS_DIR = new URL('./tls/', import.meta.url);

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  receivedAt: number;
}

/** Status to answer, or 'hang' to never answer. */
export type Answer = number | 'hang';

export interface Receiver {
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** Decides the answer for each request (after it has been recorded). */
  respond: (request: ReceivedRequest) => Answer;
  /** Resolves once `count` requests (in total) have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Requests answered 'hang' whose sender still holds the connection open. */
  hanging(): ReceivedRequest[];
  /** Answers every request still hanging with `status`, ending the attempts that wait on them. */
  answerHanging(status: number): void;
  close(): Promise<void>;
}

export async function startReceiver(respond: (request: ReceivedRequest) => Answer = () => 200): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging = new Map<ServerResponse, ReceivedRequest>();
  const receiver: Receiver = {
    url: (path = '/hook') => `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    requests,
    respond,
    async waitFor(count, timeoutMs = 20_000) {
      if (requests.length < count) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
          waiters.push({
            count,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
      }
      return requests;
    },
    hanging: () => [...hanging.values()],
    answerHanging(status) {
      for (const res of hanging.keys()) res.writeHead(status, { 'content-type': 'text/plain' }).end('no');
    },
    async close() {
      for (const res of hanging.keys()) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(
    { key: readFileSync(new URL('receiver-key.pem', TLS_DIR)), cert: readFileSync(new URL('receiver.pem', TLS_DIR)) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        requests.push(request);
        for (const w of waiters.filter((w) => requests.length >= w.count)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        const answer = receiver.respond(request);
        if (answer === 'hang') {
          // Gone once answered or once the sender closes the connection (its attempt timed out).
          hanging.set(res, request);
          res.once('close', () => hanging.delete(res));
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return receiver;
}
