import { describe, it, expect } from 'vitest';
import { NestedStack, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PLANS, type PlanName } from '#core/plans.ts';
import { API_VERSION, GATEWAY_RESPONSES, ROUTES, UNSUPPORTED_PATHS, resourceMatcher, routeGroups, type GatewayResponseType } from '#functions/routes.ts';
import { TABLES } from '#functions/resources.ts';
import { pascalCase } from '#lib/typed-records.ts';
import { logicalId, synthesize } from './synth.ts';

const { service, serviceTemplate: template, statefulTemplate } = synthesize();
const api = service.api.api;
const planNames = Object.keys(PLANS) as PlanName[];
const routedPaths = [...new Set(ROUTES.map((r) => r.path))];

/**
 * The synthesized methods by resource and HTTP method, indexed once: a `findResources` match per
 * test scanned every method with CDK's matchers (about 50 ms each, 11 s over the route table).
 */
const methodsByKey = new Map<string, Record<string, any>[]>();
for (const method of Object.values(template.findResources('AWS::ApiGateway::Method'))) {
  const key = `${JSON.stringify(method.Properties.ResourceId)} ${method.Properties.HttpMethod}`;
  methodsByKey.set(key, [...(methodsByKey.get(key) ?? []), method.Properties]);
}

/** Every deployed resource by its full path, rebuilt from its parent chain. */
const resources = template.findResources('AWS::ApiGateway::Resource');
const fullPath = (id: string): string => {
  const { ParentId, PathPart } = resources[id]!.Properties;
  const parent = ParentId.Ref as string | undefined;
  return `${parent && resources[parent] ? fullPath(parent) : ''}/${PathPart}`;
};
const deployed = Object.keys(resources).map((id) => ({ id, path: fullPath(id) }));
const selectResource = resourceMatcher(deployed);

/** A request path on a route path: each parameter a value no literal segment has. */
const sample = (path: string) => path.replace(/\{\w+\+?\}/g, 'p-1');

/** The deployed resource API Gateway selects for a request on a route path (its own, or a greedy one above it). */
function resourceFor(path: string) {
  const resource = selectResource(sample(path))?.items[0];
  expect(resource, path).toBeDefined();
  return resource!;
}

/** The synthesized method of that resource for an HTTP method. */
function methodFor(path: string, httpMethod: string) {
  const found = methodsByKey.get(`${JSON.stringify({ Ref: resourceFor(path).id })} ${httpMethod}`) ?? [];
  expect(found, `${httpMethod} ${path}`).toHaveLength(1);
  return found[0]!;
}

describe('REST API: shape', () => {
  it('is regional and takes API keys from the authorizer', () => {
    // Prepare / Act / Assess
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      ApiKeySourceType: 'AUTHORIZER',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('deploys a prod stage with tracing, metrics, error logging and JSON access logs', () => {
    // Prepare / Act / Assess
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('^\\{"requestId":"\\$context.requestId"') },
      MethodSettings: [Match.objectLike({ MetricsEnabled: true, LoggingLevel: 'ERROR', DataTraceEnabled: false })],
    });
  });

  it('grants API Gateway one invoke permission per route-group function, not one per method', () => {
    // Prepare
    const groups = routeGroups();

    // Act
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } })).filter(
      (p) => !JSON.stringify(p.Properties.SourceArn).includes('/authorizers/'),
    );

    // Assess
    expect(permissions).toHaveLength(groups.length);
  });
});

describe('REST API: stack limits', () => {
  it('spreads methods over one nested stack per route group (their sizes: quotas.suite.ts)', () => {
    // Prepare / Act
    const nested = Stack.of(service.api)
      .node.findAll()
      .filter((c): c is NestedStack => NestedStack.isNestedStack(c));
    // Assess
    expect(nested.map((stack) => stack.node.id).sort()).toEqual(
      routeGroups()
        .map((g) => `methods-${g}`)
        .sort(),
    );
    for (const stack of nested) expect(Object.keys(Template.fromStack(stack).toJSON().Resources).length, stack.node.id).toBeGreaterThan(0);
  });

  it('serves the read-only trees through greedy resources, in fewer resources than one a path', () => {
    // Prepare / Act
    const greedy = deployed.filter((r) => r.path.endsWith('/{proxy+}'));
    // Assess
    expect(greedy.length).toBeGreaterThan(1);
    expect(deployed.length).toBeLessThan(routedPaths.length);
  });
});

describe('REST API: routes', () => {
  it.each(ROUTES.map((r) => [r.method, r.path, r] as const))('serves %s %s with the authorization its route declares', (method, path, route) => {
    // Prepare
    const expected =
      route.auth === 'api_key'
        ? { AuthorizationType: 'CUSTOM', ApiKeyRequired: true, AuthorizerId: expect.anything() }
        : { AuthorizationType: 'NONE', ApiKeyRequired: false };

    // Act
    const props = methodFor(path, method);

    // Assess: a route on its own resource names its operation; a greedy resource's method serves several.
    expect(props).toMatchObject({ HttpMethod: method, ...expected });
    if (resourceFor(path).path === path) expect(props.OperationName).toBe(route.operationId);
    else expect(props).not.toHaveProperty('OperationName');
    if (route.auth !== 'api_key') expect(props).not.toHaveProperty('AuthorizerId');
    expect(props.Integration).toMatchObject({
      Type: 'AWS_PROXY',
      Uri: { 'Fn::Join': ['', expect.arrayContaining([{ 'Fn::GetAtt': [logicalId(service.functions[route.group]), 'Arn'] }])] },
    });
  });

  // A resource whose route is ANY (the catch-all) answers every method through its handler.
  const pathsWithout405 = new Set(ROUTES.filter((r) => r.method === 'ANY').map((r) => r.path));
  it.each(routedPaths.filter((p) => !pathsWithout405.has(p)))('answers other methods on %s with a 405 listing the allowed ones', (path) => {
    // Prepare
    const allowed = [...new Set(ROUTES.filter((r) => r.path === path).map((r) => r.method))].join(', ');

    // Act
    const props = methodFor(path, 'ANY');

    // Assess
    expect(props.AuthorizationType).toBe('NONE');
    expect(props.Integration.Type).toBe('MOCK');
    expect(props.Integration.RequestTemplates).toEqual({ 'application/json': '{"statusCode": 405}' });
    const [response] = props.Integration.IntegrationResponses;
    expect(response.StatusCode).toBe('405');
    expect(response.ResponseParameters).toEqual({ 'method.response.header.Allow': `'${allowed}'`, 'method.response.header.svc-version': `'${API_VERSION}'` });
    expect(JSON.parse(response.ResponseTemplates['application/json'])).toEqual({
      success: false,
      code: 405,
      error: 'Method not allowed on this path.',
      error_code: 'method_not_allowed',
      request_id: '$context.requestId',
    });
    expect(props.MethodResponses).toEqual([
      { StatusCode: '405', ResponseParameters: { 'method.response.header.Allow': true, 'method.response.header.svc-version': true } },
    ]);
  });
});

describe('REST API: gateway responses', () => {
  it.each([
    ['UNAUTHORIZED', '401'],
    ['ACCESS_DENIED', '401'],
    ['MISSING_AUTHENTICATION_TOKEN', '404'],
  ])('answers %s with status %s', (type, status) => {
    // Prepare / Act / Assess
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: type, StatusCode: status });
  });

  it.each(Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[])('renders %s in the spec error body', (type) => {
    // Prepare
    const entry = GATEWAY_RESPONSES[type];

    // Act
    const found = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } }));

    // Assess
    expect(found).toHaveLength(1);
    expect(found[0]!.Properties.StatusCode).toBe(String(entry.status));
    // A failure worth retrying says when (the authorizer's store throttled).
    expect(found[0]!.Properties.ResponseParameters).toEqual({
      'gatewayresponse.header.svc-version': `'${API_VERSION}'`,
      ...('retryAfterS' in entry && { 'gatewayresponse.header.Retry-After': `'${entry.retryAfterS}'` }),
    });
    expect(JSON.parse(found[0]!.Properties.ResponseTemplates['application/json'])).toEqual({
      success: false,
      code: entry.status,
      error: entry.message,
      error_code: entry.errorCode,
      request_id: '$context.requestId',
    });
  });
});

describe('REST API: plans and outputs', () => {
  it.each(planNames)('throttles the %s usage plan at its rate limit on the prod stage', (tier) => {
    // Prepare
    const { rps, burst } = PLANS[tier].rateLimit;

    // Act / Assess
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      UsagePlanName: tier,
      Throttle: { RateLimit: rps, BurstLimit: burst },
      ApiStages: [Match.objectLike({ ApiId: { Ref: logicalId(api) }, Stage: { Ref: logicalId(api.deploymentStage) } })],
    });
  });

  it('creates exactly one usage plan per plan tier', () => {
    // Prepare / Act / Assess
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', planNames.length);
  });

  it('exports the API URL, each usage plan id and each table name for the keys CLI', () => {
    // Prepare: the table names are the stateful stack's outputs.
    const keys = [...Object.keys(template.findOutputs('*')), ...Object.keys(statefulTemplate.findOutputs('*'))];

    // Act
    const expected = [
      'ApiUrl',
      ...planNames.map((tier) => `UsagePlanId${tier.charAt(0).toUpperCase()}${tier.slice(1)}`),
      ...Object.keys(TABLES).map((t) => `${pascalCase(t)}TableName`),
    ];

    // Assess
    expect(keys).toEqual(expect.arrayContaining(expected));
    expect(keys).toContain('AccountsTableName');
  });
});

describe('REST API: the catch-all', () => {
  it('sends every unmatched path through the key authorizer to the system function', () => {
    const props = methodFor('/{proxy+}', 'ANY');
    expect(props.AuthorizationType).toBe('CUSTOM');
    expect(props.ApiKeyRequired).toBe(true);
    expect(props.Integration.Type).toBe('AWS_PROXY');
  });

  it('gives the paths a family lacks no resource: a keyed greedy resource sends them to a function, which names where the data is', () => {
    // Prepare
    const paths = new Set(deployed.map((r) => r.path));

    // Act / Assess
    expect(UNSUPPORTED_PATHS.length).toBeGreaterThan(0);
    expect(UNSUPPORTED_PATHS.map((u) => u.path).filter((path) => paths.has(path))).toEqual([]);
    for (const { path } of UNSUPPORTED_PATHS) {
      const props = methodFor(path, resourceFor(path).path === '/{proxy+}' ? 'ANY' : 'GET');
      expect(props, path).toMatchObject({ AuthorizationType: 'CUSTOM', ApiKeyRequired: true, Integration: { Type: 'AWS_PROXY' } });
    }
  });
});
