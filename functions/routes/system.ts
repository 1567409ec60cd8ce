/** System routes: health, capabilities, the contract itself (OpenAPI, docs). */
import * as v from 'valibot';
import { stringParam } from '#schemas/params.ts';
import { HealthSchema } from '#schemas/responses.ts';
import { CapabilitySchema } from '#schemas/capabilities.ts';
import { CoverageSchema, StatsSchema, SymbolEntrySchema } from '#schemas/quality.ts';
import { operationGroup, page } from './operation.ts';

export const SYSTEM_OPERATIONS = operationGroup('system', {
  getHealth: {
    method: 'GET',
    path: '/health',
    auth: 'none',
    summary: 'Liveness check; needs no key and does not validate one',
    tags: ['System'],
    response: { status: 200, description: 'The service is up', shape: 'raw', schema: HealthSchema },
  },
  getOpenApi: {
    method: 'GET',
    path: '/v1/openapi.json',
    auth: 'none',
    summary: 'This OpenAPI 3.0.3 document',
    tags: ['System'],
    response: { status: 200, description: 'The OpenAPI document', shape: 'raw', schema: v.record(v.string(), v.unknown()) },
  },
  getCapabilities: {
    method: 'GET',
    path: '/v1/capabilities',
    auth: 'none',
    summary: 'What each family serves: routes, coverage start, cadence, page limit, intervals (no key; cached 5 minutes)',
    tags: ['System'],
    response: page(v.array(CapabilitySchema), 'One row per family and data type, generated from the route table'),
  },
  // The API reference: Redoc (a standalone bundle from node_modules, served by this function, so
  // the page needs no network beyond this API) over the OpenAPI document.
  getDocs: {
    method: 'GET',
    path: '/docs',
    auth: 'none',
    hidden: true,
    summary: 'The API reference page, rendered from the OpenAPI document',
    tags: ['System'],
    response: { status: 200, description: 'An HTML page', shape: 'raw', schema: v.string(), contentType: 'text/html' },
  },
  getDocsScript: {
    method: 'GET',
    path: '/docs/redoc.standalone.js',
    auth: 'none',
    hidden: true,
    summary: 'The renderer of the API reference page',
    tags: ['System'],
    response: { status: 200, description: 'JavaScript', shape: 'raw', schema: v.string(), contentType: 'application/javascript' },
  },
  getSymbols: {
    method: 'GET',
    path: '/v1/symbols',
    auth: 'none',
    summary: 'Every symbol of every family with data in the last 24 hours: data types, coverage, bytes a day (no key; cached 5 minutes)',
    tags: ['System'],
    response: page(v.array(SymbolEntrySchema), 'One entry per family and symbol'),
  },
  getStats: {
    method: 'GET',
    path: '/v1/stats',
    auth: 'none',
    summary: 'What the archive holds: families, symbols, data types, records and bytes of the last 24 hours, open incidents (no key; cached 5 minutes)',
    tags: ['System'],
    response: page(StatsSchema, 'Archive statistics'),
  },
  getStatusCoverage: {
    method: 'GET',
    path: '/v1/status/coverage',
    auth: 'none',
    summary: 'Coverage per venue and data type over the last 30 days, as /v1/data-quality/coverage (no key; cached 5 minutes)',
    tags: ['System'],
    response: page(CoverageSchema, 'Coverage of every venue'),
  },
  // API Gateway answers an unmatched path before any authorizer runs. This catch-all makes it
  // authenticate first, so callers without a valid key get 401 on every path (as the real
  // service does) and authenticated callers get 404 route_not_found.
  unknownRoute: {
    method: 'ANY',
    path: '/{proxy+}',
    hidden: true,
    summary: 'Any path no route matches',
    tags: ['System'],
    pathParams: { proxy: stringParam({ description: 'The request path without its leading slash', required: true }) },
    response: { status: 404, description: 'No route matches this path', shape: 'raw', schema: v.unknown() },
  },
});
