import type { QueueName } from '../resources.ts';

export interface QueueSender {
  /** Enqueues `body` on the named queue, invisible for `delaySeconds` (0 to 900). */
  send(queue: QueueName, body: string, delaySeconds?: number): Promise<void>;
}

/** A sender that also sends many messages of one queue at once (ten a request on SQS). */
export interface QueueBatchSender extends QueueSender {
  /** Throws when any message was not accepted; the caller sends them all again (consumers dedupe). */
  sendBatch(queue: QueueName, messages: readonly { body: string; delaySeconds: number }[]): Promise<void>;
}

/** A message a consumer gave up on, and why. */
export interface DeadLetter {
  body: string;
  reason: string;
  messageId: string;
  receiveCount: string;
}

export interface DeadLetterQueues {
  /** Puts the message in the named queue's dead-letter queue, with its reason as message attributes. */
  park(queue: QueueName, letter: DeadLetter): Promise<void>;
}
