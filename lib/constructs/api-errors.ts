/**
 * Answers API Gateway gives without a handler: its gateway responses (bad key, throttled, unknown
 * path...) and the 405 for a wrong method. Both use the spec's error body so clients parse one shape.
 */
import { AuthorizationType, Method, MockIntegration, PassthroughBehavior, ResponseType, type IResource, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { API_VERSION, API_VERSION_HEADER, GATEWAY_RESPONSES, METHOD_NOT_ALLOWED, type GatewayResponseType } from '#functions/routes.ts';

/** `$context.requestId` is left for API Gateway's template engine to fill in. */
function errorBodyTemplate(status: number, errorCode: string, message: string): string {
  return JSON.stringify({ success: false, code: status, error: message, error_code: errorCode, request_id: '$context.requestId' });
}

/** Fails the synth on a GATEWAY_RESPONSES key API Gateway does not know, instead of at deploy. */
function responseType(key: GatewayResponseType): ResponseType {
  const type: unknown = (ResponseType as unknown as Record<string, unknown>)[key];
  if (!(type instanceof ResponseType)) throw new Error(`GATEWAY_RESPONSES key ${key} is not an API Gateway response type`);
  return type;
}

export function addGatewayResponses(api: RestApi): void {
  for (const [key, entry] of Object.entries(GATEWAY_RESPONSES) as [GatewayResponseType, (typeof GATEWAY_RESPONSES)[GatewayResponseType]][]) {
    api.addGatewayResponse(`gateway-response-${key}`, {
      type: responseType(key),
      statusCode: String(entry.status),
      responseHeaders: { [API_VERSION_HEADER]: `'${API_VERSION}'`, ...('retryAfterS' in entry && { 'Retry-After': `'${entry.retryAfterS}'` }) },
      templates: { 'application/json': errorBodyTemplate(entry.status, entry.errorCode, entry.message) },
    });
  }
}

/**
 * API Gateway prefers a resource's specific methods over ANY, so this mock only answers methods
 * the route table does not declare, with the `Allow` header RFC 9110 asks of a 405.
 */
export function addMethodNotAllowed(scope: Construct, path: string, resource: IResource, methods: readonly string[]): Method {
  const status = String(METHOD_NOT_ALLOWED.status);
  const allowHeader = 'method.response.header.Allow';
  const versionHeader = `method.response.header.${API_VERSION_HEADER}`;
  const integration = new MockIntegration({
    requestTemplates: { 'application/json': `{"statusCode": ${status}}` },
    passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
    integrationResponses: [
      {
        statusCode: status,
        responseParameters: { [allowHeader]: `'${[...new Set(methods)].join(', ')}'`, [versionHeader]: `'${API_VERSION}'` },
        responseTemplates: {
          'application/json': errorBodyTemplate(METHOD_NOT_ALLOWED.status, METHOD_NOT_ALLOWED.errorCode, METHOD_NOT_ALLOWED.message),
        },
      },
    ],
  });
  return new Method(scope, `not-allowed${path.replaceAll('/', '_')}`, {
    resource,
    httpMethod: 'ANY',
    integration,
    options: {
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      methodResponses: [{ statusCode: status, responseParameters: { [allowHeader]: true, [versionHeader]: true } }],
    },
  });
}
