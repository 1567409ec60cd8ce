import { describe, expect, it } from 'vitest';
import { operatorsFor, publicDeclaration } from '#core/webhooks/catalog.ts';
import { EVENT_TYPES } from '#core/events/registry.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';

describe('the event-type catalogue', () => {
  it('declares 28 types of which 24 are live, the four soon ones as the spec lists them', () => {
    expect(EVENT_TYPES).toHaveLength(28);
    expect(new Set(EVENT_TYPES.map((d) => d.type)).size).toBe(28);
    expect(EVENT_TYPES.filter((d) => d.live)).toHaveLength(24);
    expect(
      EVENT_TYPES.filter((d) => !d.live)
        .map((d) => d.type)
        .sort(),
    ).toEqual(['chain.block_stall', 'chain.block_time_degraded', 'market.delisted', 'oracle.stall']);
  });

  it("gives the seconds latency class to exactly the spec's fast types", () => {
    expect(
      EVENT_TYPES.filter((d) => d.latencyClass === 'seconds')
        .map((d) => d.type)
        .sort(),
    ).toEqual(['account.fill', 'account.liquidated', 'account.transfer', 'chain.upgrade_detected', 'market.liquidation', 'webhook.test']);
  });

  it('scopes every account.* type to watched addresses with max_age_s, and nothing else', () => {
    for (const d of EVENT_TYPES) {
      expect(d.scopeKeys.includes('addresses'), d.type).toBe(d.type.startsWith('account.'));
      if (d.type.startsWith('account.'))
        expect(d.params.max_age_s, d.type).toMatchObject({ default: d.type === 'account.hip4_settled' ? 7200 : 3600, min: 60, max: 86_400 });
    }
  });

  it('gives every type with metrics a filters_example with a condition, which the type accepts as given', () => {
    for (const d of EVENT_TYPES) {
      const example = publicDeclaration(d).filters_example as { addresses?: string[]; conditions?: { metric: string }[] };
      if (Object.keys(d.metrics).length === 0) continue;
      expect(example.conditions, d.type).toHaveLength(1);
      expect(Object.keys(d.metrics), d.type).toContain(example.conditions![0]!.metric);
      const stored = normalizeConfig(d, example, new Set(example.addresses ?? []));
      expect(stored.conditions, d.type).toHaveLength(1 + (d.notionalMetric && 'min_notional_usd' in example ? 1 : 0));
    }
  });

  it("has defaults inside each param's range or menu", () => {
    for (const d of EVENT_TYPES) {
      for (const [name, p] of Object.entries(d.params)) {
        if (p.type === 'enum') expect(p.menu, `${d.type}.${name}`).toContain(p.default);
        else if (p.type === 'array_of_number') expect(p.default.every((n) => n >= p.min && n <= p.max)).toBe(true);
        else {
          if (p.menu) expect(p.menu, `${d.type}.${name}`).toContain(p.default);
          if (p.min !== undefined) expect(p.default).toBeGreaterThanOrEqual(p.min);
          if (p.max !== undefined) expect(p.default).toBeLessThanOrEqual(p.max);
        }
      }
    }
  });

  it("maps metric types to the spec's operator groups", () => {
    expect(operatorsFor('number')).toContain('between');
    expect(operatorsFor('enum')).toContain('starts_with');
    expect(operatorsFor('boolean')).toEqual(['equal', 'not_equal', 'is_empty', 'is_not_empty']);
    expect(operatorsFor('timestamp')).toEqual(['before', 'after', 'equal', 'is_empty', 'is_not_empty']);
  });

  it('serves each declaration with every member the spec names', () => {
    for (const d of EVENT_TYPES) {
      expect(Object.keys(publicDeclaration(d))).toEqual(
        expect.arrayContaining([
          'type',
          'live',
          'description',
          'scope',
          'venues',
          'filters',
          'params',
          'metrics',
          'operators',
          'cost_floor',
          'latency_class',
          'filters_example',
        ]),
      );
    }
    expect(publicDeclaration(EVENT_TYPES.find((d) => d.type === 'market.liquidation')!)).toMatchObject({
      venues: ['perpx', 'hip3', 'altx'],
      cost_floor: { metric: 'notional_usd', min: 100 },
      latency_class: 'seconds',
      filters: expect.arrayContaining(['venue', 'symbols', 'conditions', 'params', 'min_notional_usd', 'max_age_s']),
    });
  });
});
