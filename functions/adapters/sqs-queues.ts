import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueName } from '../resources.ts';
import type { DeadLetterQueues, QueueSender } from '../ports/queues.ts';

/** SQS caps a message attribute's value; the reason is cut, the message itself is kept whole. */
const REASON_MAX = 1_000;

export function sqsQueueSender(client: SQSClient, queueUrl: (queue: QueueName) => string): QueueSender {
  return {
    async send(queue, body, delaySeconds = 0) {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body, DelaySeconds: delaySeconds }));
    },
  };
}

export function sqsDeadLetterQueues(client: SQSClient, dlqUrl: (queue: QueueName) => string): DeadLetterQueues {
  return {
    async park(queue, letter) {
      await client.send(new SendMessageCommand({
        QueueUrl: dlqUrl(queue),
        MessageBody: letter.body,
        MessageAttributes: {
          failure_reason: { DataType: 'String', StringValue: letter.reason.slice(0, REASON_MAX) },
          source_queue: { DataType: 'String', StringValue: queue },
          source_message_id: { DataType: 'String', StringValue: letter.messageId },
          receive_count: { DataType: 'Number', StringValue: letter.receiveCount },
        },
      }));
    },
  };
}
