import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore, { type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { buildOpenApiDocument, SERVICE_VERSION } from '#shared/openapi.ts';
import { ROUTES } from '#functions/routes.ts';

type Operation = { operationId: string; deprecated?: boolean; security?: unknown[]; parameters: { name: string; in: string }[] };

const document = buildOpenApiDocument({ baseUrl: 'https://api.example.com' });
const documentedRoutes = ROUTES.filter((r) => !r.hidden);

describe('the OpenAPI document', () => {
  it('passes the Redocly recommended rules with no errors or warnings', async () => {
    // Prepare
    const config = await createConfig({ extends: ['recommended'] });
    // Act
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    // Assess ("Meta is never used" only until the first envelope route exists.) The real service
    // serves /liquidations/user/{user} beside /liquidations/{symbol}/volume and /levels; only
    // `user/volume` and `user/levels` could read both ways, and a user is a 0x address, so those pairs are accepted.
    // Likewise a replay job (`/subscriptions/replays/{id}`, the path the replay jobs were specified
    // under) beside `/subscriptions/{id}/resume`: a subscription id is a UUID, never `replays`.
    const mirrored = (p: (typeof problems)[number]) =>
      p.ruleId === 'no-ambiguous-paths'
      && ((p.message.includes('/liquidations/user/{user}') && /\/liquidations\/\{symbol\}\/(volume|levels)`/.test(p.message))
        || (p.message.includes('/v1/webhooks/subscriptions/{id}/resume') && p.message.includes('/v1/webhooks/subscriptions/replays/{id}')));
    const reported = problems
      .filter((p) => p.ruleId !== 'no-unused-components' && !mirrored(p))
      .map((p) => `${p.severity} ${p.ruleId}: ${p.message} @ ${p.location?.[0]?.pointer}`);
    expect(reported).toEqual([]);
  });

  it("passes Spectral's recommended OpenAPI rules with no errors or warnings", async () => {
    // Prepare
    const spectral = new spectralCore.Spectral();
    // The package's own ruleset type lacks `extends`, which its definition type requires of itself.
    spectral.setRuleset({ extends: [[spectralRulesets.oas as RulesetDefinition, 'recommended']] });
    // Act
    const results = await spectral.run(new spectralCore.Document(JSON.stringify(document), spectralParsers.Json, 'openapi.json'));
    // Assess: severity 0 is an error, 1 a warning.
    const reported = results.filter((r) => r.severity <= 1).map((r) => `${r.severity === 0 ? 'error' : 'warn'} ${r.code}: ${r.message} @ ${r.path.join('.')}`);
    expect(reported).toEqual([]);
  });

  it("is OpenAPI 3.0.3 with the specification's contract version, the service's release beside it, and one {base_url} server", () => {
    expect(document.openapi).toBe('3.0.3');
    // The specification fixes the contract at 1.5.0; the release is the CHANGELOG's and package.json's.
    expect(document.info).toMatchObject({ version: '1.5.0', 'x-service-version': SERVICE_VERSION });
    const changelog = readFileSync(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8');
    expect(changelog.match(/^## (\d+\.\d+\.\d+) - \d{4}-\d{2}-\d{2}$/m)?.[1]).toBe(SERVICE_VERSION);
    expect(JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version).toBe(SERVICE_VERSION);
    expect(document.servers).toEqual([{ url: '{base_url}', variables: { base_url: { default: 'https://api.example.com' } } }]);
  });

  it('describes every route of the route table with its parameters, security and deprecation', () => {
    const paths = document.paths as Record<string, Record<string, Operation>>;
    for (const route of documentedRoutes) {
      const op = paths[route.path]?.[route.method.toLowerCase()];
      expect(op?.operationId, `${route.method} ${route.path}`).toBe(route.operationId);
      const names = op!.parameters.map((p) => `${p.in}:${p.name}`).sort();
      const expected = [
        ...Object.keys(route.pathParams ?? {}).map((n) => `path:${n}`),
        ...Object.keys(route.query ?? {}).map((n) => `query:${n}`),
        ...Object.keys(route.headers ?? {}).map((n) => `header:${n}`),
      ].sort();
      expect(names).toEqual(expected);
      expect(op!.security).toEqual(route.auth === 'none' ? [] : undefined);
      expect(Boolean(op!.deprecated)).toBe(Boolean(route.deprecated));
    }
  });
});
