/**
 * The fault proxy: an HTTP proxy in front of each emulator (DynamoDB, S3, SQS) that makes the local
 * cloud misbehave as AWS does at its worst, by a plan (schemas/fault-plan.ts): throttling and 5xx
 * answers with the bodies AWS writes, connection resets, added latency, writes that land but whose
 * answer fails (a function killed right after a write), and SQS messages handed out twice. The
 * handlers and the event sources reach the emulators through it (cloud.ts points the SDK's
 * endpoints here), so what is tested is the real code with its real SDK retries. It counts what it
 * injected; with no rules it only passes requests on.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAULT_SERVICES, NO_FAULTS, type FaultPlan, type FaultRule, type FaultService } from '#schemas/fault-plan.ts';
import { IDLE_SOCKET_MS } from './sqs-journal.ts';
import type { Endpoints } from './emulators.ts';

export interface FaultReport {
  /** Requests that reached the proxy, per service. */
  requests: Record<FaultService, number>;
  /** Faults injected, by `<service> <operation> <fault>[ landed]`. */
  injected: Record<string, number>;
}

export interface FaultProxies {
  /** The proxies' endpoints, to point SDK clients at. */
  endpoints: Endpoints;
  /** Replaces the plan (and restarts its random draws from the plan's seed, and its report). */
  setPlan(plan: FaultPlan): void;
  /** What the current plan has seen and injected. */
  report(): FaultReport;
  stop(): Promise<void>;
}

/** A seeded generator (mulberry32): the same seed and order of requests give the same faults. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JSON_TYPE = 'application/x-amz-json-1.0';
const S3_ERRORS = {
  throttle: { status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' },
  'server-error': { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' },
} as const;

/** The error answer AWS gives for `fault` on `service` (status, headers, body). */
function errorAnswer(
  service: FaultService,
  fault: 'throttle' | 'server-error',
  method: string,
  draw: number,
): { status: number; headers: Record<string, string>; body: string } {
  const requestId = randomUUID();
  if (service === 's3') {
    const { status, code, message } = S3_ERRORS[fault];
    // A HEAD answer has no body; the SDK reads the code from the status.
    const body =
      method === 'HEAD'
        ? ''
        : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${requestId}</RequestId><HostId>${requestId}</HostId></Error>`;
    return { status, headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId }, body };
  }
  if (service === 'dynamodb') {
    const type =
      fault === 'server-error'
        ? 'com.amazonaws.dynamodb.v20120810#InternalServerError'
        : // DynamoDB answers both: the first for a table's capacity, the second for the account's or the control plane's rate.
          draw < 0.5
          ? 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException'
          : 'com.amazon.coral.availability#ThrottlingException';
    const message =
      fault === 'server-error'
        ? 'Internal server error'
        : type.endsWith('ProvisionedThroughputExceededException')
          ? 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.'
          : 'Rate of requests exceeds the allowed throughput.';
    return {
      status: fault === 'server-error' ? 500 : 400,
      headers: { 'content-type': JSON_TYPE, 'x-amzn-requestid': requestId },
      body: JSON.stringify({ __type: type, message }),
    };
  }
  const [type, query] =
    fault === 'server-error'
      ? ['com.amazon.coral.service#InternalFailure', 'InternalFailure;Receiver']
      : ['com.amazonaws.sqs#RequestThrottled', 'RequestThrottled;Sender'];
  return {
    status: fault === 'server-error' ? 500 : 400,
    headers: { 'content-type': JSON_TYPE, 'x-amzn-requestid': requestId, 'x-amzn-query-error': query },
    body: JSON.stringify({
      __type: type,
      message: fault === 'server-error' ? 'The request processing has failed because of an unknown error, exception or failure.' : 'Request is throttled.',
    }),
  };
}

function operationOf(service: FaultService, request: IncomingMessage): string {
  if (service === 's3') return request.method ?? 'GET';
  return (
    String(request.headers['x-amz-target'] ?? '')
      .split('.')
      .pop() ?? ''
  );
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Upstream {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const DUPLICATE_HANDLE = 'fault-duplicate-';

export async function startFaultProxies(targets: Endpoints, initial: FaultPlan = NO_FAULTS): Promise<FaultProxies> {
  let plan = initial;
  let draw = seeded(plan.seed);
  const used = new Map<FaultRule, number>();
  /** The request a rule with a limit fails (its first match): its retries fail with it, as one killed call. */
  const stuck = new Map<FaultRule, string>();
  const requests = Object.fromEntries(FAULT_SERVICES.map((s) => [s, 0])) as Record<FaultService, number>;
  const injected: Record<string, number> = {};
  const count = (label: string) => {
    injected[label] = (injected[label] ?? 0) + 1;
  };
  /** Copies of received SQS messages to hand out again, by queue URL. */
  const duplicates = new Map<string, { dueAt: number; message: Record<string, unknown> }[]>();
  /** Messages already copied once (by id, with when), so a copy is not copied again. */
  const copied = new Map<string, number>();
  let handles = 0;
  const agent = new Agent({ keepAlive: true });
  const patterns = new Map<string, RegExp>();
  const matches = (source: string, subject: string) => (patterns.get(source) ?? patterns.set(source, new RegExp(source)).get(source)!).test(subject);

  /** The first rule matching the request whose draw comes up (one draw per matching rule). */
  const pick = (service: FaultService, operation: string, subject: string): FaultRule | undefined => {
    for (const rule of plan.rules) {
      if (rule.service !== service || (rule.operation !== undefined && rule.operation !== operation)) continue;
      if (rule.fault === 'duplicate') continue; // applied to the answer, message by message
      if (rule.match !== undefined && !matches(rule.match, subject)) continue;
      if (rule.limit !== undefined && ((used.get(rule) ?? 0) >= rule.limit || (stuck.has(rule) && stuck.get(rule) !== subject))) continue;
      if (draw() >= rule.rate) continue;
      used.set(rule, (used.get(rule) ?? 0) + 1);
      if (rule.limit !== undefined) stuck.set(rule, subject);
      return rule;
    }
    return undefined;
  };

  const forward = (target: string, request: IncomingMessage, body: Buffer): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      // The Host header goes as signed: s3rver checks the SigV4 signature, which covers it.
      // The body may be one the proxy rewrote (SQS): its own length, not the caller's.
      const { 'transfer-encoding': _chunked, ...sent } = request.headers;
      const headers = { ...sent, 'content-length': String(body.length) };
      const upstream = httpRequest(`${target}${request.url ?? '/'}`, { method: request.method, headers, agent }, (answer) => {
        bodyOf(answer).then((buffer) => resolve({ status: answer.statusCode ?? 500, headers: answer.headers, body: buffer }), reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });

  const send = (response: ServerResponse, status: number, headers: IncomingMessage['headers'] | Record<string, string>, body: Buffer | string) => {
    const passed = Object.fromEntries(Object.entries(headers).filter(([name]) => !['content-length', 'transfer-encoding', 'connection'].includes(name)));
    response.writeHead(status, { ...passed, 'content-length': String(Buffer.byteLength(body)) });
    response.end(body);
  };

  /** SQS: copies of received messages are handed out again; their receipts are answered here. */
  async function sqsExchange(operation: string, target: string, request: IncomingMessage, body: Buffer): Promise<Upstream> {
    const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    const queueUrl = String(input.QueueUrl ?? '');
    if (operation === 'DeleteMessage' || operation === 'ChangeMessageVisibility') {
      if (String(input.ReceiptHandle ?? '').startsWith(DUPLICATE_HANDLE))
        return { status: 200, headers: { 'content-type': JSON_TYPE }, body: Buffer.from('{}') };
      return forward(target, request, body);
    }
    if (operation === 'DeleteMessageBatch' || operation === 'ChangeMessageVisibilityBatch') {
      const entries = (input.Entries ?? []) as { Id: string; ReceiptHandle: string }[];
      const ours = entries.filter((e) => e.ReceiptHandle.startsWith(DUPLICATE_HANDLE));
      if (ours.length === 0) return forward(target, request, body);
      const rest = entries.filter((e) => !ours.includes(e));
      let answer: Record<string, unknown> = { Successful: [], Failed: [] };
      if (rest.length > 0) {
        const upstream = await forward(target, request, Buffer.from(JSON.stringify({ ...input, Entries: rest })));
        if (upstream.status !== 200) return upstream;
        answer = JSON.parse(upstream.body.toString('utf8')) as Record<string, unknown>;
      }
      const successful = [...((answer.Successful ?? []) as unknown[]), ...ours.map((e) => ({ Id: e.Id }))];
      return { status: 200, headers: { 'content-type': JSON_TYPE }, body: Buffer.from(JSON.stringify({ ...answer, Successful: successful })) };
    }
    const shortened =
      operation === 'ReceiveMessage' ? plan.rules.find((r) => r.service === 'sqs' && r.fault === 'duplicate' && r.visibilityS !== undefined) : undefined;
    if (shortened) count('sqs ReceiveMessage visibility shortened');
    const upstream = await forward(target, request, shortened ? Buffer.from(JSON.stringify({ ...input, VisibilityTimeout: shortened.visibilityS })) : body);
    if (operation !== 'ReceiveMessage' || upstream.status !== 200) return upstream;
    const answer = JSON.parse(upstream.body.toString('utf8') || '{}') as { Messages?: Record<string, unknown>[] };
    const messages = answer.Messages ?? [];
    const now = Date.now();
    for (const rule of plan.rules.filter((r) => r.service === 'sqs' && r.fault === 'duplicate')) {
      for (const message of messages) {
        const id = String(message.MessageId);
        if (copied.has(id) || draw() >= rule.rate) continue;
        if (rule.match !== undefined && !matches(rule.match, `${queueUrl}\n${String(message.Body)}`)) continue;
        copied.set(id, now);
        const list = duplicates.get(queueUrl) ?? duplicates.set(queueUrl, []).get(queueUrl)!;
        list.push({ dueAt: now + (rule.afterMs ?? 0), message });
        count(`sqs ReceiveMessage duplicate`);
      }
    }
    for (const [id, at] of copied) if (now - at > 60 * 60_000) copied.delete(id);
    const room = Number(input.MaxNumberOfMessages ?? 1) - messages.length;
    const pending = duplicates.get(queueUrl) ?? [];
    const due = pending.filter((d) => d.dueAt <= now).slice(0, Math.max(0, room));
    if (due.length === 0) return upstream;
    duplicates.set(
      queueUrl,
      pending.filter((d) => !due.includes(d)),
    );
    const again = due.map(({ message }) => {
      const attributes = (message.Attributes ?? {}) as Record<string, string>;
      handles += 1;
      return {
        ...message,
        ReceiptHandle: `${DUPLICATE_HANDLE}${handles}`,
        Attributes: { ...attributes, ApproximateReceiveCount: String(Number(attributes.ApproximateReceiveCount ?? 1) + 1) },
      };
    });
    return { ...upstream, body: Buffer.from(JSON.stringify({ ...answer, Messages: [...messages, ...again] })) };
  }

  async function handle(service: FaultService, target: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await bodyOf(request);
    requests[service] += 1;
    const operation = operationOf(service, request);
    const rule = pick(service, operation, service === 's3' ? (request.url ?? '') : body.toString('utf8'));
    if (rule) count(`${service} ${operation} ${rule.fault}${rule.landed ? ' landed' : ''}`);
    if (rule?.fault === 'latency') await new Promise((resolve) => setTimeout(resolve, rule.latencyMs));
    const failing = rule && rule.fault !== 'latency' ? rule : undefined;
    if (failing && !failing.landed) return fail(failing, service, request, response);
    const upstream = service === 'sqs' ? await sqsExchange(operation, target, request, body) : await forward(target, request, body);
    // The write took effect; its answer is lost, as when the caller died right after sending it.
    if (failing) return fail(failing, service, request, response);
    send(response, upstream.status, upstream.headers, upstream.body);
  }

  function fail(rule: FaultRule, service: FaultService, request: IncomingMessage, response: ServerResponse): void {
    if (rule.fault === 'reset') {
      request.socket.destroy();
      return;
    }
    const answer = errorAnswer(service, rule.fault === 'throttle' ? 'throttle' : 'server-error', request.method ?? 'GET', draw());
    send(response, answer.status, answer.headers, answer.body);
  }

  const servers = await Promise.all(
    FAULT_SERVICES.map(async (service) => {
      const server = createServer((request, response) => {
        handle(service, targets[service], request, response).catch((error: unknown) => {
          // The emulator itself failed or reset: the caller sees a reset, as it would have without the proxy.
          if (!response.headersSent) request.socket.destroy(error instanceof Error ? error : undefined);
        });
      });
      server.keepAliveTimeout = IDLE_SOCKET_MS;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return [service, server] as const;
    }),
  );
  const urlOf = (service: FaultService) => `http://127.0.0.1:${(servers.find(([s]) => s === service)![1].address() as AddressInfo).port}`;
  const endpoints: Endpoints = { dynamodb: urlOf('dynamodb'), s3: urlOf('s3'), sqs: urlOf('sqs') };

  return {
    endpoints,
    setPlan(next) {
      plan = next;
      draw = seeded(next.seed);
      used.clear();
      stuck.clear();
      for (const service of FAULT_SERVICES) requests[service] = 0;
      for (const label of Object.keys(injected)) delete injected[label];
    },
    report: () => ({ requests: { ...requests }, injected: { ...injected } }),
    async stop() {
      agent.destroy();
      await Promise.all(
        servers.map(
          ([, server]) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
