/**
 * The shell of a state machine's task (functions/workflows/): its payload parsed against its
 * schema in schemas/messages.ts at the entry, then the task, with Powertools' logging and metrics.
 * A payload that does not parse is the state machine's bug, never the caller's: the error names
 * the task and each field at fault, and Step Functions records it as the task's failure.
 */
import middy from '@middy/core';
import * as v from 'valibot';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { AppError } from '../core/errors.ts';
import { describeIssues } from '#schemas/issues.ts';
import { logger, publishMetrics } from './powertools.ts';

/** The task's payload, or an error naming the task and the fields at fault. */
export function parseTaskPayload<S extends v.GenericSchema>(task: string, schema: S, event: unknown): v.InferOutput<S> {
  const parsed = v.safeParse(schema, event);
  if (parsed.success) return parsed.output;
  throw new AppError('internal_error', `Task ${task} received a payload it cannot run: ${describeIssues(parsed.issues, '(payload)')}`);
}

export function workflowTask<S extends v.GenericSchema, R>(task: string, schema: S, run: (payload: v.InferOutput<S>) => Promise<R>) {
  return middy((event: unknown) => run(parseTaskPayload(task, schema, event)))
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishMetrics());
}
