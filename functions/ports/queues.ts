import type { QueueName } from '../resources.ts';

export interface QueueSender {
  /** Enqueues `body` on the named queue, invisible for `delaySeconds` (0 to 900). */
  send(queue: QueueName, body: string, delaySeconds?: number): Promise<void>;
}
