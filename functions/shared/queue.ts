/**
 * The shared shell of SQS consumers: Powertools batch processing with partial batch failures, so
 * one bad message fails alone and the rest of the batch is deleted.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger, publishMetrics } from './powertools.ts';

export function sqsConsumer(handleRecord: (record: SQSRecord) => Promise<void>) {
  // A processor per invocation: it keeps the batch's failures as state, and the local cloud may run
  // two invocations of one handler module at once (Lambda never does within a container).
  const handle = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { context });
  return middy(handle).use(injectLambdaContext(logger, { resetKeys: true })).use(publishMetrics());
}
