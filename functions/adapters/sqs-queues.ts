import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueName } from '../resources.ts';
import type { QueueSender } from '../ports/queues.ts';

export function sqsQueueSender(client: SQSClient, queueUrl: (queue: QueueName) => string): QueueSender {
  return {
    async send(queue, body, delaySeconds = 0) {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body, DelaySeconds: delaySeconds }));
    },
  };
}
