/**
 * The local SQS journal: after a crash (the emulator and journal dropped without a clean stop), the
 * next start sends again exactly the messages that were not consumed: visible, delayed (with what
 * is left of the delay), in flight, sent singly or in a batch; consumed and purged ones stay gone.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { createSqsServer } from 'local-aws-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { startSqsJournal, type SqsJournal } from '#local/sqs-journal.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqs-journal-'));
const path = join(dir, 'journal.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh emulator (nothing in memory) behind a journal on the same file: a restart after a crash. */
async function start(options: { compactAfter?: number; path?: string } = {}) {
  const server = await createSqsServer({ port: 0, hostname: '127.0.0.1', region: LOCAL_REGION, emulateQueueCreationLifecycle: false });
  const journal: SqsJournal = await startSqsJournal(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, options.path ?? path, 0, options);
  const client = new SQSClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: journal.endpoint });
  const queueUrl = async (name: string) => (await client.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  const urls = { work: await queueUrl('work'), other: await queueUrl('other') };
  return {
    journal,
    client,
    urls,
    crash: async () => {
      client.destroy();
      await journal.stop();
      server.close();
    },
  };
}

const receive = async (client: SQSClient, QueueUrl: string, VisibilityTimeout = 0) =>
  (
    await client.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout, AttributeNames: ['All'], MessageAttributeNames: ['All'] }),
    )
  ).Messages ?? [];

describe('the local SQS journal', () => {
  it('sends again after a crash exactly what was not consumed', async () => {
    // Prepare: one run with messages in every state.
    const first = await start();
    const { client, urls } = first;
    await client.send(new SendMessageCommand({ QueueUrl: urls.work, MessageBody: 'consumed' }));
    await client.send(
      new SendMessageCommand({ QueueUrl: urls.work, MessageBody: 'in flight', MessageAttributes: { kind: { DataType: 'String', StringValue: 'x' } } }),
    );
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: urls.work,
        Entries: [
          { Id: 'a', MessageBody: 'batch consumed' },
          { Id: 'b', MessageBody: 'batch left' },
        ],
      }),
    );
    await client.send(new SendMessageCommand({ QueueUrl: urls.work, MessageBody: 'delayed', DelaySeconds: 3 }));
    await client.send(new SendMessageCommand({ QueueUrl: urls.other, MessageBody: 'purged' }));
    const received = await receive(client, urls.work, 60);
    const byBody = new Map(received.map((m) => [m.Body, m]));
    await client.send(new DeleteMessageCommand({ QueueUrl: urls.work, ReceiptHandle: byBody.get('consumed')!.ReceiptHandle! }));
    await client.send(
      new DeleteMessageBatchCommand({ QueueUrl: urls.work, Entries: [{ Id: '0', ReceiptHandle: byBody.get('batch consumed')!.ReceiptHandle! }] }),
    );
    await client.send(new PurgeQueueCommand({ QueueUrl: urls.other }));
    expect(byBody.has('in flight')).toBe(true);
    expect(first.journal.leftOver).toEqual([]);

    // Act: the process dies; a new one starts on the same journal.
    await first.crash();
    const second = await start();

    // Assess
    expect(second.journal.leftOver.map((m) => [m.queue, m.body]).sort()).toEqual([
      ['work', 'batch left'],
      ['work', 'delayed'],
      ['work', 'in flight'],
    ]);
    expect(second.journal.leftOver.find((m) => m.body === 'in flight')?.attributes).toMatchObject({ kind: { DataType: 'String', StringValue: 'x' } });
    for (const message of second.journal.leftOver) {
      await second.client.send(
        new SendMessageCommand({
          QueueUrl: second.urls[message.queue as keyof typeof second.urls],
          MessageBody: message.body,
          MessageAttributes: message.attributes as never,
          DelaySeconds: Math.max(0, Math.ceil((message.visibleAt - Date.now()) / 1000)),
        }),
      );
    }
    second.journal.replayed();
    const now = (await receive(second.client, second.urls.work, 60)).map((m) => m.Body).sort();
    expect(now).toEqual(['batch left', 'in flight']);
    expect(await receive(second.client, second.urls.other)).toEqual([]);
    // The re-sent messages are journaled anew: another crash keeps them (the delayed one included).
    await second.crash();
    const third = await start();
    expect(third.journal.leftOver.map((m) => m.body).sort()).toEqual(['batch left', 'delayed', 'in flight']);
    await third.crash();
  });

  it('rewrites itself a number of times that grows with the log of a backlog, not with every message beyond it', async () => {
    // Prepare: a journal compacted after 10 entries, with a backlog three times that left unconsumed.
    const backlogPath = join(dir, 'backlog.jsonl');
    const run = await start({ compactAfter: 10, path: backlogPath });
    const send = (i: number) => run.client.send(new SendMessageBatchCommand({ QueueUrl: run.urls.work, Entries: [{ Id: 'x', MessageBody: `m${i}` }] }));
    for (let i = 0; i < 30; i++) await send(i);

    // Act: 30 more single sends, noting each time the file was replaced by a rewrite.
    let rewrites = 0;
    for (let i = 30; i < 60; i++) {
      const before = statSync(backlogPath).ino;
      await send(i);
      if (statSync(backlogPath).ino !== before) rewrites++;
    }

    // Assess: one rewrite as the journal doubles past the backlog (a rewrite after every send when
    // the bound ignored the backlog), and every message still named once after a crash.
    expect(rewrites).toBeLessThanOrEqual(1);
    expect(readFileSync(backlogPath, 'utf8').trim().split('\n').length).toBeLessThan(2 * 60);
    await run.crash();
    const after = await start({ compactAfter: 10, path: backlogPath });
    expect(after.journal.leftOver.map((m) => m.body).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `m${i}`).sort());
    await after.crash();
  });
});
