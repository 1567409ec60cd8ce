/**
 * Concurrent invocations in one process (the local cloud) each log with their own context: the
 * keys one appends and the Lambda context its middleware injects never show on another's lines.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logger, withOwnLogger } from '#shared/powertools.ts';
import { lambdaContext } from '#test/helpers/events.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every JSON line the logger writes while `work` runs. */
async function captured(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  await work();
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A handler as the route groups build them: context injected, a key appended, a line logged after an await. */
const handler = middy(async (event: { id: string; wait: number }) => {
  logger.appendKeys({ request_id: event.id });
  await pause(event.wait);
  logger.error('handled', { handled: event.id });
}).use(injectLambdaContext(logger, { resetKeys: true }));

describe('per-invocation logging', () => {
  it("keeps each concurrent invocation's request id and function name on its own lines", async () => {
    const lines = await captured(() =>
      Promise.all([
        withOwnLogger(() => handler({ id: 'first', wait: 30 }, { ...lambdaContext, functionName: 'market', awsRequestId: 'a' })),
        withOwnLogger(() => handler({ id: 'second', wait: 5 }, { ...lambdaContext, functionName: 'exports', awsRequestId: 'b' })),
        withOwnLogger(() => handler({ id: 'third', wait: 15 }, { ...lambdaContext, functionName: 'deliver', awsRequestId: 'c' })),
      ]),
    );
    const handled = lines.filter((l) => l.message === 'handled');
    expect(handled.map((l) => [l.handled, l.request_id, l.function_name]).sort()).toEqual([
      ['first', 'first', 'market'],
      ['second', 'second', 'exports'],
      ['third', 'third', 'deliver'],
    ]);
  });

  it('starts every invocation without the keys an earlier one appended', async () => {
    await withOwnLogger(async () => {
      logger.appendKeys({ leftover: 'yes' });
    });
    const lines = await captured(() =>
      withOwnLogger(async () => {
        logger.error('fresh');
      }),
    );
    expect(lines.find((l) => l.message === 'fresh')).not.toHaveProperty('leftover');
  });
});
