/**
 * What every backend of the queue ports (functions/ports/queues.ts) must do. `received` drains
 * what a queue (or a dead-letter queue) holds and is visible now; tests use queues of their own.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DeadLetterQueues, QueueBatchSender } from '#ports/queues.ts';
import type { QueueName } from '#functions/resources.ts';

export interface Received {
  body: string;
  reason?: string;
  sourceQueue?: string;
}
export type Drain = (queue: QueueName) => Promise<Received[]>;

export function queueSenderContract(sender: () => QueueBatchSender, received: Drain): void {
  describe('QueueBatchSender', () => {
    it('delivers a sent message whole, and holds a delayed one back', async () => {
      const body = JSON.stringify({ id: randomUUID(), text: 'naïve ✓ "quoted"' });
      await sender().send('events', body);
      await sender().send('events', 'later', 900);
      expect((await received('events')).map((m) => m.body)).toEqual([body]);
    });

    it("sends a batch of any size (past one request's ten), every message once", async () => {
      const bodies = Array.from({ length: 23 }, (_, i) => `batched-${i}-${randomUUID()}`);
      await sender().sendBatch(
        'ingest',
        bodies.map((body) => ({ body, delaySeconds: 0 })),
      );
      await sender().sendBatch('ingest', []);
      expect((await received('ingest')).map((m) => m.body).sort()).toEqual([...bodies].sort());
    });

    it('holds back only the delayed messages of a batch', async () => {
      await sender().sendBatch('delivery-slow', [
        { body: 'now', delaySeconds: 0 },
        { body: 'later', delaySeconds: 600 },
      ]);
      expect((await received('delivery-slow')).map((m) => m.body)).toEqual(['now']);
    });
  });
}

export function deadLetterQueuesContract(dlq: () => DeadLetterQueues, received: Drain): void {
  describe('DeadLetterQueues', () => {
    it("parks a message whole in its queue's dead-letter queue with its reason and source, cutting only a long reason", async () => {
      const body = JSON.stringify({ id: randomUUID() });
      await dlq().park('delivery', { body, reason: 'payload.id: Invalid type', messageId: 'm-1', receiveCount: '5' });
      await dlq().park('delivery', { body: 'not json', reason: 'x'.repeat(5_000), messageId: 'm-2', receiveCount: '1' });
      const parked = await received('delivery');
      expect(parked.map((m) => m.body).sort()).toEqual([body, 'not json'].sort());
      expect(parked.find((m) => m.body === body)).toMatchObject({ reason: 'payload.id: Invalid type', sourceQueue: 'delivery' });
      const long = parked.find((m) => m.body === 'not json')!.reason!;
      expect(long.length).toBeGreaterThan(100);
      expect(long.length).toBeLessThan(5_000);
      expect('x'.repeat(5_000).startsWith(long)).toBe(true);
    });
  });
}
