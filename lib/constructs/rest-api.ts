/**
 * The public REST API, built from the resources the route table lays out
 * (functions/gateway-resources.ts): a route's own resource and method, or a greedy `{proxy+}`
 * resource whose group's function finds the route; a 405 mock on each resource answering the
 * methods it does not have; the gateway's own error bodies; a usage plan per tier. The resource
 * tree, stage and deployment live in the API stack; the methods live in nested stacks, one per
 * route group with the 405s of its resources, since one stack holds at most 500 resources (and
 * 200 parameters).
 */
import { Duration, NestedStack } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  Method,
  MethodLoggingLevel,
  RequestAuthorizer,
  RestApi,
  type IResource,
  type MethodOptions,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionName } from '#functions/resources.ts';
import { API_KEY_HEADER, AUTHORIZER_CACHE_TTL_S } from '#functions/routes.ts';
import { GATEWAY_RESOURCES, type GatewayMethod } from '#functions/gateway-resources.ts';
import type { PlanName } from '#core/plans.ts';
import { addGatewayResponses, addMethodNotAllowed } from './api-errors.ts';
import { addUsagePlans } from './usage-plans.ts';

/** One JSON line per request; the authorizer's account id ties a request to a customer. */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    ip: AccessLogField.contextIdentitySourceIp(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    path: AccessLogField.contextPath(),
    status: AccessLogField.contextStatus(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    accountId: AccessLogField.contextAuthorizer('account_id'),
    plan: AccessLogField.contextAuthorizer('plan'),
    errorType: AccessLogField.contextErrorResponseType(),
    authorizeError: AccessLogField.contextAuthorizeError(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
  }),
);

export interface ServiceRestApiProps {
  readonly functions: Readonly<Record<FunctionName, IFunction>>;
}

export class ServiceRestApi extends Construct {
  readonly api: RestApi;
  readonly usagePlans: Readonly<Record<PlanName, UsagePlan>>;
  /** Methods open to anyone by design (auth 'none' routes and the 405 answers); nag needs them. */
  readonly publicMethods: Method[] = [];
  private readonly functions: Readonly<Record<FunctionName, IFunction>>;
  private readonly integrations = new Map<FunctionName, LambdaIntegration>();
  private readonly methodStacks = new Map<FunctionName, NestedStack>();
  /** Created with the first 'api_key' route: CDK refuses an authorizer no method uses. */
  private requestAuthorizer?: RequestAuthorizer;

  constructor(scope: Construct, id: string, props: ServiceRestApiProps) {
    super(scope, id);
    this.functions = props.functions;

    const accessLogs = new LogGroup(this, 'access-logs', { retention: RetentionDays.ONE_MONTH });
    this.api = new RestApi(this, 'Resource', {
      restApiName: 'market-archive',
      description: 'Market archive query and webhook API',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The authorizer returns the caller's usage key, so plans throttle per account, not per header.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      cloudWatchRole: true,
      // Arrow pages are binary: handlers answer them base64-encoded and the gateway decodes them for
      // any Accept header (`format=arrow` needs none). JSON answers are not base64 and pass as they are.
      binaryMediaTypes: ['*/*'],
      deployOptions: {
        stageName: 'prod',
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Data trace would copy request headers, API keys included, into the execution logs.
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
      },
    });

    for (const { path, methods, notAllowed } of GATEWAY_RESOURCES) {
      const resource = this.api.root.resourceForPath(path);
      for (const method of methods) this.addMethod(resource, path, method);
      // The 405 sits beside the resource's methods, so each nested stack references only its own resources.
      if (notAllowed) this.publicMethods.push(addMethodNotAllowed(this.methodStack(methods[0]!.group), path, resource, notAllowed));
    }
    addGatewayResponses(this.api);
    this.usagePlans = addUsagePlans(this.api);
  }

  /** A route's method (named by its operation), or a greedy resource's method serving several routes. */
  private addMethod(resource: IResource, path: string, { method: httpMethod, group, auth, operationId }: GatewayMethod): void {
    const options: MethodOptions =
      auth === 'api_key'
        ? { authorizer: this.keyAuthorizer(), authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true }
        : { authorizationType: AuthorizationType.NONE, apiKeyRequired: false };
    const method = new Method(this.methodStack(group), operationId ?? `${httpMethod}${path.replaceAll('/', '_')}`, {
      resource,
      httpMethod,
      integration: this.integrationFor(group),
      options: { ...options, ...(operationId && { operationName: operationId }) },
    });
    if (auth === 'none') this.publicMethods.push(method);
  }

  /** The nested stack that holds a share of the methods (created on first use). */
  private methodStack(group: FunctionName): NestedStack {
    let stack = this.methodStacks.get(group);
    if (!stack)
      this.methodStacks.set(group, (stack = new NestedStack(this, `methods-${group}`, { description: `Market archive API methods of route group ${group}` })));
    return stack;
  }

  /**
   * One integration per function with an API-wide invoke permission: a permission per method
   * would overflow the function's 20 KB resource policy once a group serves dozens of routes.
   */
  private integrationFor(group: FunctionName): LambdaIntegration {
    let integration = this.integrations.get(group);
    if (!integration) {
      integration = new LambdaIntegration(this.functions[group], { proxy: true, scopePermissionToMethod: false });
      this.integrations.set(group, integration);
    }
    return integration;
  }

  /** The API-key authorizer, if any route needs one. */
  get authorizer(): RequestAuthorizer | undefined {
    return this.requestAuthorizer;
  }

  private keyAuthorizer(): RequestAuthorizer {
    this.requestAuthorizer ??= new RequestAuthorizer(this, 'api-key-authorizer', {
      handler: this.functions.authorizer,
      identitySources: [IdentitySource.header(API_KEY_HEADER)],
      // Cached per key for every route; the authorizer's policy therefore allows the whole stage.
      resultsCacheTtl: Duration.seconds(AUTHORIZER_CACHE_TTL_S),
    });
    return this.requestAuthorizer;
  }
}
