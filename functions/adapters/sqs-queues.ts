import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueName } from '../resources.ts';
import type { DeadLetterQueues, QueueBatchSender } from '../ports/queues.ts';

/** SQS caps a message attribute's value; the reason is cut, the message itself is kept whole. */
const REASON_MAX = 1_000;

/** SendMessageBatch takes at most this many entries. */
const SQS_BATCH = 10;

export function sqsQueueSender(client: SQSClient, queueUrl: (queue: QueueName) => string): QueueBatchSender {
  return {
    async send(queue, body, delaySeconds = 0) {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: body, DelaySeconds: delaySeconds }));
    },
    async sendBatch(queue, messages) {
      for (let i = 0; i < messages.length; i += SQS_BATCH) {
        const { Failed = [] } = await client.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl(queue),
            Entries: messages.slice(i, i + SQS_BATCH).map((m, j) => ({ Id: String(j), MessageBody: m.body, DelaySeconds: m.delaySeconds })),
          }),
        );
        if (Failed.length > 0)
          throw new Error(`SQS refused ${Failed.length} of a batch of messages to ${queue}: ${Failed[0]!.Code} ${Failed[0]!.Message ?? ''}`);
      }
    },
  };
}

export function sqsDeadLetterQueues(client: SQSClient, dlqUrl: (queue: QueueName) => string): DeadLetterQueues {
  return {
    async park(queue, letter) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: dlqUrl(queue),
          MessageBody: letter.body,
          MessageAttributes: {
            failure_reason: { DataType: 'String', StringValue: letter.reason.slice(0, REASON_MAX) },
            source_queue: { DataType: 'String', StringValue: queue },
            source_message_id: { DataType: 'String', StringValue: letter.messageId },
            receive_count: { DataType: 'Number', StringValue: letter.receiveCount },
          },
        }),
      );
    },
  };
}
