/**
 * The webhook sender: one POST over HTTPS, with the SSRF guard re-applied at connect time
 * (SPEC, Authentication item 7: HTTPS only, destination re-checked on every attempt, no redirects,
 * one 10 s budget).
 *
 * Checking the URL before sending is not enough: DNS can answer a public address to the check and a
 * private one to the connect (rebinding). So the resolved addresses are vetted inside the socket's
 * own `lookup`, and Node dials only what passed. IP literals never reach `lookup`, so they are
 * vetted up front.
 *
 * Connections are kept alive per destination (host, port) in the sender's own agent: a burst to one
 * receiver pays one TLS handshake, not one per attempt (6.5x the CPU). Every pooled socket was
 * dialled through the vetting `lookup` (the agent is private to the sender and every request
 * passes it), so reuse never reaches an address that was not checked; a socket sits idle at most
 * `IDLE_SOCKET_MS`, shorter than the usual server keep-alive (Node's 5 s), so the receiver rarely
 * closes one under a new request, and when it does (a reset before any answer on a reused socket)
 * the request is sent again once on a new connection.
 */
import { Agent, request } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { allowListed, checkHostName, parseDestination, type ResolveHost } from '../core/webhooks/ssrf.ts';
import { hostLiteral, isForbiddenAddress } from '../core/webhooks/ip-ranges.ts';
import type { OutboundRequest, SendOutcome, WebhookSender } from '../ports/webhooks.ts';

export interface HttpsSenderOptions {
  /** DNS port: every A/AAAA address of a name. */
  resolve: ResolveHost;
  /** Local cloud only: hosts exempt from the address checks (exact match). */
  allowHosts?: readonly string[];
  /** Budget for the whole exchange: DNS, connect, TLS, headers and body. */
  timeoutMs?: number;
  /**
   * Response body bytes read at most. The body is only drained to learn that the receiver finished
   * answering; once this many bytes arrived the answer counts as complete (a 2xx is then ok) and the
   * socket is destroyed, so a huge or endless body cannot hold the worker.
   */
  maxResponseBytes?: number;
}

export const DEFAULT_SEND_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 8_192;

const USER_AGENT = 'market-archive-webhooks/1';
/** How long an idle kept-alive socket waits for the next request to its destination. */
const IDLE_SOCKET_MS = 4_000;
/** Idle sockets kept per destination; a burst beyond opens more, which close when it ends. */
const IDLE_SOCKETS_PER_DESTINATION = 8;
/** Code of the error our `lookup` fails with, so the refusal is told apart from network failures. */
const REFUSED = 'ERR_WEBHOOK_DESTINATION_REFUSED';
const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA']);
/** Framing headers are ours to set; a caller's Host would also decouple the name checked from the name sent. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

function refusal(reason: string): NodeJS.ErrnoException {
  return Object.assign(new Error(reason), { code: REFUSED });
}

/** The validated addresses of `host`, or the reason to refuse it (fail closed: one bad address refuses all). */
async function vet(host: string, resolve: ResolveHost, allowed: boolean): Promise<LookupAddress[]> {
  let answers: string[];
  try {
    answers = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && NOT_FOUND_CODES.has(code)) throw refusal('URL host does not resolve');
    throw Object.assign(new Error(`DNS lookup failed: ${code ?? (error as Error)?.message ?? String(error)}`), { code: 'EWEBHOOKDNS' });
  }
  const addresses = [...new Set(answers.map((a) => hostLiteral(a) ?? a))];
  if (addresses.length === 0) throw refusal('URL host does not resolve');
  return addresses.map((address) => {
    const family = isIP(address);
    const reason = family === 0 ? 'not an IP address' : allowed ? undefined : isForbiddenAddress(address);
    if (reason) throw refusal(`URL host resolves to ${reason}`);
    return { address, family };
  });
}

function describe(error: NodeJS.ErrnoException, handshaking: boolean): string {
  const code = error.code ?? '';
  if (code === REFUSED) return `destination refused: ${error.message}`;
  if (code === 'EWEBHOOKDNS') return error.message;
  if (NOT_FOUND_CODES.has(code)) return 'destination refused: URL host does not resolve';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset';
  // Certificate failures carry OpenSSL codes (CERT_HAS_EXPIRED, ...) with no common prefix, so an
  // error between TCP connect and the finished handshake counts as TLS too.
  if (handshaking || /^ERR_(SSL|TLS)_/.test(code)) return `TLS error: ${error.message}`;
  return code ? `network error: ${code}` : `network error: ${error.message}`;
}

export function createHttpsSender(options: HttpsSenderOptions): WebhookSender {
  const allowHosts = options.allowHosts ?? [];
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    vet(hostname, options.resolve, allowListed(hostname, allowHosts)).then(
      (vetted) => {
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? vetted.filter((a) => a.family === lookupOptions.family) : vetted;
        const first = wanted[0];
        if (!first) callback(refusal('URL host does not resolve'), '');
        else if (lookupOptions.all) callback(null, wanted);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  const agent = new Agent({ keepAlive: true, maxFreeSockets: IDLE_SOCKETS_PER_DESTINATION, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' });

  return (outbound: OutboundRequest) =>
    new Promise<SendOutcome>((settle) => {
      const started = performance.now();
      let statusCode: number | null = null;
      let remoteAddress: string | null = null;
      let done = false;
      let req: ReturnType<typeof request> | undefined;
      /** `keepSocket`: the answer was read to its end, so the socket may serve the next request. */
      const finish = (error: string | null, keepSocket = false): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (!keepSocket) req?.destroy();
        settle({ ok: error === null, statusCode, latencyMs: Math.round(performance.now() - started), error, remoteAddress });
      };
      const timer = setTimeout(() => finish(`timed out after ${timeoutMs} ms`), timeoutMs);

      const parsed = parseDestination(outbound.url);
      if (!parsed.ok) return finish(`destination refused: ${parsed.reason}`);
      const { url, host, port } = parsed;
      const allowed = allowListed(host, allowHosts);
      const literal = hostLiteral(host);
      const reason = allowed ? undefined : literal !== undefined ? isForbiddenAddress(literal) : checkHostName(host);
      if (reason) return finish(literal !== undefined ? `destination refused: URL host ${literal} is ${reason}` : `destination refused: ${reason}`);

      const given = Object.entries(outbound.headers).filter(([name]) => !RESERVED_HEADERS.has(name.toLowerCase()));
      const body = Buffer.from(outbound.body, 'utf8');
      const send = (resendOnStaleSocket: boolean): void => {
        let handshaking = false;
        try {
          req = request({
            host,
            port,
            path: `${url.pathname}${url.search}`,
            method: 'POST',
            lookup,
            agent,
            headers: { ...Object.fromEntries(given), 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': body.length },
          });
        } catch (error) {
          finish(describe(error as NodeJS.ErrnoException, false));
          return;
        }
        const sent = req;
        sent.on('socket', (socket: Socket) => {
          // A kept-alive socket is already connected (and vetted when it was dialled).
          if (!socket.connecting) {
            remoteAddress = socket.remoteAddress ?? null;
            return;
          }
          socket.once('connect', () => {
            remoteAddress = socket.remoteAddress ?? null;
            handshaking = true;
          });
          socket.once('secureConnect', () => {
            handshaking = false;
          });
        });
        sent.on('error', (error: NodeJS.ErrnoException) => {
          if (resendOnStaleSocket && sent.reusedSocket && statusCode === null && error.code === 'ECONNRESET' && !done) return send(false);
          finish(describe(error, handshaking));
        });
        sent.on('response', (res) => {
          statusCode = res.statusCode ?? null;
          const status = statusCode ?? 0;
          res.on('error', (error: NodeJS.ErrnoException) => finish(describe(error, false)));
          // A failed answer is known from its status line; its body cannot change the outcome.
          if (status >= 300 && status < 400) return finish(`receiver answered ${status}; redirects are not followed`);
          if (status < 200 || status >= 300) return finish(`receiver returned ${status}`);
          let received = 0;
          if (maxBytes <= 0) return finish(null);
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received >= maxBytes) finish(null);
          });
          res.on('end', () => finish(null, true));
        });
        sent.end(body);
      };
      send(true);
    });
}
