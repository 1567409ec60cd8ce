/**
 * local-aws-sqs keeps messages in memory only. So that a restart of the local cloud keeps queued
 * work, a clean stop drains every queue (and DLQ) into LOCAL_DATA_DIR/sqs.json and the next start
 * sends the messages again. Messages still delayed or in flight at stop cannot be received and are
 * not kept; the timers table holds everything that waits longer than SQS can.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

type Snapshot = Record<string, string[]>;

export async function saveQueues(sqs: SQSClient, queueUrls: Record<string, string>, path: string): Promise<number> {
  const snapshot: Snapshot = {};
  let saved = 0;
  for (const [name, url] of Object.entries(queueUrls)) {
    const bodies: string[] = [];
    for (;;) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
      if (Messages.length === 0) break;
      bodies.push(...Messages.map((m) => m.Body ?? ''));
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
    }
    if (bodies.length) snapshot[name] = bodies;
    saved += bodies.length;
  }
  writeFileSync(path, JSON.stringify(snapshot));
  return saved;
}

export async function restoreQueues(sqs: SQSClient, queueUrls: Record<string, string>, path: string): Promise<number> {
  if (!existsSync(path)) return 0;
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  let restored = 0;
  for (const [name, bodies] of Object.entries(snapshot)) {
    const url = queueUrls[name];
    if (!url) continue;
    for (let i = 0; i < bodies.length; i += 10) {
      const chunk = bodies.slice(i, i + 10);
      await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: chunk.map((body, j) => ({ Id: String(j), MessageBody: body })) }));
      restored += chunk.length;
    }
  }
  rmSync(path);
  return restored;
}
