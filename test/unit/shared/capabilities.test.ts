/** `/v1/capabilities` is generated from the route table: it and the OpenAPI document list the same data routes. */
import { describe, expect, it } from 'vitest';
import { capabilities } from '#shared/capabilities.ts';
import { buildOpenApiDocument } from '#shared/openapi.ts';
import { ROUTES } from '#functions/routes.ts';
import { DATASETS } from '#schemas/datasets.ts';
import { CANDLE_INTERVALS } from '#schemas/intervals.ts';
import { BREADTH_COVERAGE } from '#core/breadth/history.ts';

const document = buildOpenApiDocument({ baseUrl: 'https://example.test' }) as { paths: Record<string, Record<string, { tags?: string[] }>> };
const rows = capabilities();

describe('the capabilities catalogue', () => {
  it('names only routes of the OpenAPI document, and every per-family data route of it exactly once', () => {
    // Prepare: the document's data routes are the per-family ones (webhook and system routes are not data).
    const perFamily = new Set(ROUTES.filter((r) => r.family && !r.deprecated && !r.hidden).map((r) => r.path));
    const documented = Object.keys(document.paths).filter((path) => perFamily.has(path));
    // Act
    const listed = rows.flatMap((row) => row.rest_routes);
    // Assess
    for (const path of listed) expect(document.paths[path], path).toBeDefined();
    expect([...listed].sort()).toEqual([...documented].sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const row of rows) for (const path of row.rest_routes) expect(ROUTES.find((r) => r.path === path)?.family).toBe(row.venue);
  });

  it("reports coverage starts, page limits and intervals from the registries and the routes' own parameters", () => {
    const find = (venue: string, datatype: string) => rows.find((r) => r.venue === venue && r.datatype === datatype);
    expect(find('perpx', 'trades')).toMatchObject({
      available_from: new Date(DATASETS.trades.coverage.perpx).toISOString(),
      cadence: 'event',
      page_limit: 1000,
    });
    expect(find('altx', 'liquidations')?.available_from).toBe(new Date(DATASETS.altx_liquidations.coverage.altx).toISOString());
    expect(find('hip3', 'breadth')?.available_from).toBe(new Date(BREADTH_COVERAGE.hip3).toISOString());
    expect(find('perpx', 'candles')?.intervals).toEqual(Object.keys(CANDLE_INTERVALS));
    expect(find('perpx', 'positions')?.rest_routes).toContain('/v1/perpx/wallets/{address}/positions');
    expect(find('spot', 'positions')).toBeUndefined();
    expect(find('altx-rh', 'accounts')).toBeUndefined();
  });
});
