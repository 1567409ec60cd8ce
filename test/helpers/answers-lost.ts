/**
 * A DynamoDB document client whose every write lands and is then sent again, as the SDK retries a
 * write whose answer was lost (a reset after the store applied it): the caller sees the second
 * answer. For the port contracts' "counted once" checks, without a proxy.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const WRITES = new Set(['UpdateCommand', 'PutCommand', 'DeleteCommand']);

export function answersLost(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return async (command: { constructor: { name: string } }) => {
        const send = target.send.bind(target) as (c: unknown) => Promise<unknown>;
        if (!WRITES.has(command.constructor.name)) return send(command);
        await send(command).catch(() => undefined);
        return send(command);
      };
    },
  });
}
