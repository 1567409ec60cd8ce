/**
 * API Gateway REQUEST authorizer. Throwing `Unauthorized` makes the gateway answer its
 * UNAUTHORIZED response (401 with our error body); any other throw becomes AUTHORIZER_FAILURE.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { resolveApiKey, stageWideResource } from '../core/authorize.ts';
import { API_KEY_HEADER } from '../routes.ts';
import { headerValue } from '../shared/headers.ts';
import { accountStore } from '../shared/deps.ts';
import { logger } from '../shared/powertools.ts';

async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const account = await resolveApiKey(accountStore(), headerValue(event.headers, API_KEY_HEADER));
  if (!account) throw new Error('Unauthorized');
  return {
    principalId: account.id,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageWideResource(event.methodArn) }],
    },
    context: { account_id: account.id, plan: account.plan, ...(account.monthlyCredits !== undefined && { monthly_credits: account.monthlyCredits }) },
    usageIdentifierKey: account.usageKey,
  };
}

export const handler = middy(authorize).use(injectLambdaContext(logger, { resetKeys: true }));
