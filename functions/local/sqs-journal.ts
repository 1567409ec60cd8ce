/**
 * local-aws-sqs keeps messages in memory only, so a crash of the local cloud would lose every
 * message queued, delayed or in flight. This journal sits in front of it on the SQS protocol: every
 * message sent is appended to a file before the sender hears it was sent, and every delete after
 * it happens, so the file always names the messages not yet consumed. On the next start those are
 * sent again (with what is left of their delay): at least once, as SQS itself promises.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Sent {
  id: string;
  queue: string;
  body: string;
  /** When the message becomes visible (epoch ms). */
  visibleAt: number;
  attributes?: Record<string, unknown>;
}

type Entry = ({ t: 'send' } & Sent) | { t: 'del'; id: string } | { t: 'purge'; queue: string; at: number };

/**
 * The journal is rewritten with only the unconsumed messages once it holds this many entries, and
 * at least twice as many as there are unconsumed messages: with a backlog of more than this many,
 * a bound of its own would rewrite the whole backlog at every write.
 */
const COMPACT_AFTER = 10_000;

/** How long the journal (and the other emulators' servers) keep a client's idle connection open (see startSqsJournal). */
export const IDLE_SOCKET_MS = 10 * 60_000;

/** A queue's name from its URL (the URL's port changes from one start to the next). */
const queueName = (url: unknown) => String(url).split('/').pop() ?? '';

/**
 * Told of messages sent to one queue: how many, and when they become visible (epoch ms). Returns
 * a function that stops the telling.
 */
export type QueueArrivals = (listener: (count: number, visibleAt: number) => void) => () => void;

export interface SqsJournal {
  endpoint: string;
  /**
   * The messages sent to a queue (by URL) as the journal sees them pass: what a long poll learns
   * in SQS, which local-aws-sqs answers only once a whole batch is there (see poller.ts).
   */
  arrivals(queueUrl: string): QueueArrivals;
  /** Messages a previous run left unconsumed, oldest first (read once, at start). */
  leftOver: readonly Sent[];
  /** The left-over messages have been sent again (and journaled anew): forget the old run. */
  replayed(): void;
  stop(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads what a journal left unconsumed. */
function replay(lines: string[]): Map<string, Sent> {
  const open = new Map<string, Sent>();
  for (const line of lines) {
    if (!line) continue;
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      continue; // a line cut short by the crash itself
    }
    if (entry.t === 'send') open.set(entry.id, entry);
    else if (entry.t === 'del') open.delete(entry.id);
    else for (const [id, sent] of open) if (sent.queue === entry.queue && sent.visibleAt <= entry.at) open.delete(id);
  }
  return open;
}

export async function startSqsJournal(target: string, path: string, port = 0, { compactAfter = COMPACT_AFTER } = {}): Promise<SqsJournal> {
  // What the last run left open, kept in `.replay` until the caller has sent it again (a crash
  // while re-sending replays it once more: duplicates, never losses).
  const replayPath = `${path}.replay`;
  const lines = [replayPath, path].filter((p) => existsSync(p)).flatMap((p) => readFileSync(p, 'utf8').split('\n'));
  const previous = replay(lines);
  writeFileSync(replayPath, [...previous.values()].map((sent) => `${JSON.stringify({ t: 'send', ...sent })}\n`).join(''));
  writeFileSync(path, '');
  const open = new Map<string, Sent>();
  /** Receipt -> message, and each open message's receipts (a message received again gets another). */
  const receipts = new Map<string, string>();
  const receiptsOf = new Map<string, Set<string>>();
  let entries = 0;
  const listeners = new Map<string, Set<(count: number, visibleAt: number) => void>>();
  /** Tells the queue's listeners of the messages one call sent (to one queue), by when they become visible. */
  const announce = (sent: readonly Sent[]) => {
    const queueListeners = listeners.get(sent[0]?.queue ?? '');
    if (!queueListeners) return;
    const byVisibleAt = new Map<number, number>();
    for (const { visibleAt } of sent) byVisibleAt.set(visibleAt, (byVisibleAt.get(visibleAt) ?? 0) + 1);
    for (const [visibleAt, count] of byVisibleAt) for (const listener of queueListeners) listener(count, visibleAt);
  };

  /** One call's entries, applied and appended together (one write a call, not one a message). */
  const write = (batch: readonly Entry[]) => {
    if (batch.length === 0) return;
    for (const entry of batch) {
      if (entry.t === 'send') open.set(entry.id, entry);
      else if (entry.t === 'del') open.delete(entry.id);
      else for (const [id, sent] of open) if (sent.queue === entry.queue) open.delete(id);
    }
    appendFileSync(path, batch.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    entries += batch.length;
    if (entries >= Math.max(compactAfter, 2 * open.size)) {
      writeFileSync(`${path}.next`, [...open.values()].map((sent) => `${JSON.stringify({ t: 'send', ...sent })}\n`).join(''));
      renameSync(`${path}.next`, path);
      entries = open.size;
    }
  };

  /** A deleted message's entry; its receipts are forgotten with it. */
  const deleted = (receipt: string): Entry[] => {
    const id = receipts.get(receipt);
    if (!id) return [];
    for (const other of receiptsOf.get(id) ?? []) receipts.delete(other);
    receiptsOf.delete(id);
    return [{ t: 'del', id }];
  };
  /** Journals what a successful call did. Message attributes are kept as sent (JSON protocol shapes). */
  const note = (operation: string, request: Record<string, unknown>, response: Record<string, unknown>) => {
    const now = Date.now();
    const sent = (entry: Record<string, unknown>, id: unknown): { t: 'send' } & Sent => ({
      t: 'send',
      id: String(id),
      queue: queueName(request.QueueUrl),
      body: String(entry.MessageBody ?? ''),
      visibleAt: now + Number(entry.DelaySeconds ?? 0) * 1000,
      ...(entry.MessageAttributes !== undefined && { attributes: entry.MessageAttributes as Record<string, unknown> }),
    });
    const sendAll = (entries: ({ t: 'send' } & Sent)[]) => {
      write(entries);
      announce(entries);
    };
    if (operation === 'SendMessage') sendAll([sent(request, response.MessageId)]);
    else if (operation === 'SendMessageBatch') {
      const ids = new Map(((response.Successful ?? []) as { Id: string; MessageId: string }[]).map((s) => [s.Id, s.MessageId]));
      sendAll(
        ((request.Entries ?? []) as Record<string, unknown>[])
          .filter((entry) => ids.has(String(entry.Id)))
          .map((entry) => sent(entry, ids.get(String(entry.Id)))),
      );
    } else if (operation === 'ReceiveMessage') {
      for (const message of (response.Messages ?? []) as { MessageId: string; ReceiptHandle: string }[]) {
        // Only open messages are remembered: the maps are bounded by the messages in flight.
        if (!open.has(message.MessageId)) continue;
        receipts.set(message.ReceiptHandle, message.MessageId);
        const known = receiptsOf.get(message.MessageId);
        if (known) known.add(message.ReceiptHandle);
        else receiptsOf.set(message.MessageId, new Set([message.ReceiptHandle]));
      }
    } else if (operation === 'DeleteMessage') {
      write(deleted(String(request.ReceiptHandle)));
    } else if (operation === 'DeleteMessageBatch') {
      const done = new Set(((response.Successful ?? []) as { Id: string }[]).map((s) => s.Id));
      write(
        ((request.Entries ?? []) as { Id: string; ReceiptHandle: string }[])
          .filter((entry) => done.has(entry.Id))
          .flatMap((entry) => deleted(entry.ReceiptHandle)),
      );
    } else if (operation === 'PurgeQueue') write([{ t: 'purge', queue: queueName(request.QueueUrl), at: now }]);
  };

  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)),
      ) as Record<string, string>;
      const upstream = await fetch(`${target}${request.url ?? '/'}`, { method: request.method, headers, ...(body.length > 0 && { body }) });
      const answer = Buffer.from(await upstream.arrayBuffer());
      const operation = String(request.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      if (upstream.ok && operation) {
        try {
          note(
            operation,
            JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>,
            JSON.parse(answer.toString('utf8') || '{}') as Record<string, unknown>,
          );
        } catch (error) {
          console.error(`[sqs journal] could not journal ${operation}:`, error);
        }
      }
      const passed = [...upstream.headers].filter(([name]) => !['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name));
      response.writeHead(upstream.status, Object.fromEntries(passed));
      response.end(answer);
    })().catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'InternalFailure', message: error instanceof Error ? error.message : String(error) }));
    });
  });
  // The SDK keeps idle sockets open without a limit of its own; closing them after Node's 5 s idle
  // races a request sent on one just then ("socket hang up"). Poll loops now sleep up to 10 s
  // between receives, so the journal keeps an idle socket open far longer than any of them sleeps.
  server.keepAliveTimeout = IDLE_SOCKET_MS;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    leftOver: [...previous.values()],
    arrivals: (queueUrl) => (listener) => {
      const queue = queueName(queueUrl);
      const set = listeners.get(queue) ?? listeners.set(queue, new Set()).get(queue)!;
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
    replayed: () => rmSync(replayPath, { force: true }),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
