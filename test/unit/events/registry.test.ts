/**
 * The event registry is the one place an event type is added (docs/adding-an-event-type.md). What
 * the type system cannot say about it is checked here: every module in core/events/ is registered
 * under its own type, the latency class a type declares is one its detection can keep, and the
 * previews a type offers are ones its detection can replay.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BATCH_DETECTORS, DRY_RUN_TYPES, ESTIMATE_TYPES, EVENT_DEFINITION_BY_TYPE, EVENT_TYPES, MINUTE_DETECTORS } from '#core/events/registry.ts';

const EVENTS_DIR = new URL('../../../functions/core/events/', import.meta.url);
const definitions = [...EVENT_DEFINITION_BY_TYPE.values()];

describe('the event registry', () => {
  it('registers every module of core/events under the type its file is named after', async () => {
    const modules = readdirSync(EVENTS_DIR).filter((f) => f.endsWith('.ts') && f !== 'declare.ts' && f !== 'registry.ts');
    for (const file of modules) {
      const { default: definition } = await import(new URL(file, EVENTS_DIR).href);
      expect(definition.declaration.type, file).toBe(file.replace(/\.ts$/, ''));
      expect(EVENT_DEFINITION_BY_TYPE.get(definition.declaration.type), file).toBe(definition);
    }
    expect(modules).toHaveLength(EVENT_TYPES.length);
  });

  it('declares 28 types of which 24 are live, and every live type says how it is detected', () => {
    expect(EVENT_TYPES).toHaveLength(28);
    expect(definitions.filter((d) => d.declaration.live)).toHaveLength(24);
    for (const d of definitions) expect(d.detection !== undefined, d.declaration.type).toBe(d.declaration.live);
  });

  it('promises the seconds class only where detection runs on each batch or is announced as it happens', () => {
    for (const d of definitions.filter((e) => e.declaration.latencyClass === 'seconds')) {
      expect(['batch', 'announced'], d.declaration.type).toContain(d.detection?.kind);
    }
  });

  it('offers dry-run only for batch detectors, and estimate only where the archive can be replayed', () => {
    const batch = new Set<string>(BATCH_DETECTORS.map((d) => d.type));
    const minute = new Set<string>(MINUTE_DETECTORS.map((d) => d.type));
    for (const type of DRY_RUN_TYPES) expect(batch.has(type), type).toBe(true);
    for (const type of ESTIMATE_TYPES) expect(batch.has(type) || minute.has(type), type).toBe(true);
  });

  it('lists the previews the spec names', () => {
    expect([...DRY_RUN_TYPES].sort()).toEqual(['account.fill', 'account.transfer', 'market.liquidation']);
    expect([...ESTIMATE_TYPES].sort()).toEqual([
      'account.fill',
      'account.liquidated',
      'account.transfer',
      'hip4.settlement',
      'market.funding_flip',
      'market.liquidation',
      'market.liquidation_burst',
      'market.oi_delta',
      'market.pga_payment',
      'oracle.jump',
    ]);
  });

  it('gives a gated estimate a param the type declares, and names a metric the type declares', () => {
    for (const d of definitions) {
      const estimate = d.preview?.estimate;
      if (!estimate) continue;
      expect(Object.keys(d.declaration.metrics), d.declaration.type).toContain(estimate.metric);
      if (estimate.gate) expect(Object.keys(d.declaration.params), d.declaration.type).toContain(estimate.gate.param);
    }
  });

  it('asks minute detectors only for params their type declares', () => {
    for (const { type, detection } of MINUTE_DETECTORS) {
      for (const param of detection.params) expect(Object.keys(EVENT_DEFINITION_BY_TYPE.get(type)!.declaration.params), type).toContain(param);
    }
  });
});
