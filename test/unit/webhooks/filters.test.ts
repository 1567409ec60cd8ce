import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_BY_NAME } from '#core/webhooks/catalog.ts';
import { normalizeConfig } from '#core/webhooks/filters.ts';

const decl = (type: string) => EVENT_TYPE_BY_NAME.get(type)!;
const none = new Set<string>();
const refused = (type: string, filters: unknown, watched = none) => {
  try {
    normalizeConfig(decl(type), filters, watched);
  } catch (error) {
    return error as { code: string; param?: string; message: string; validValues?: readonly unknown[] };
  }
  throw new Error('accepted');
};

describe('normalizeConfig, accepted', () => {
  it('fills every param with its default when filters are absent or empty', () => {
    const expected = { conditions: [], params: { window_s: 300, threshold_mode: 'usd', threshold_usd: 1_000_000, threshold_pct: 1 } };
    expect(normalizeConfig(decl('market.liquidation_burst'), undefined, none)).toEqual(expected);
    expect(normalizeConfig(decl('market.liquidation_burst'), {}, none)).toEqual(expected);
  });

  it('stores symbol operators as words, routes top-level params, and mirrors min_notional_usd from the loosest lower bound', () => {
    const config = normalizeConfig(
      decl('market.liquidation'),
      {
        venue: 'perpx|HIP3',
        symbols: ['BTC', 'xyz:TSLA'],
        max_age_s: 600,
        min_notional_usd: 50_000,
        conditions: [
          { metric: 'notional_usd', op: '>=', value: 20_000 },
          { metric: 'side', op: '==', value: 'long' },
        ],
      },
      none,
    );
    expect(config).toEqual({
      venue: ['perpx', 'hip3'],
      symbols: ['BTC', 'xyz:TSLA'],
      conditions: [
        { metric: 'notional_usd', op: 'greater_than_or_equal', value: 20_000 },
        { metric: 'side', op: 'equal', value: 'long' },
        { metric: 'notional_usd', op: 'greater_than_or_equal', value: 50_000 },
      ],
      min_notional_usd: 20_000,
      params: { max_age_s: 600 },
    });
  });

  it('reads a bare threshold on liquidation bursts as threshold_usd', () => {
    expect(normalizeConfig(decl('market.liquidation_burst'), { threshold: 250_000 }, none).params.threshold_usd).toBe(250_000);
  });

  it('takes usdc_value as the notional metric of transfers, and watched addresses in any case', () => {
    const watched = new Set([`0x${'ab'.repeat(20)}`]);
    const config = normalizeConfig(decl('account.transfer'), { addresses: [`0x${'AB'.repeat(20)}`], min_notional_usd: 1000 }, watched);
    expect(config.conditions).toEqual([{ metric: 'usdc_value', op: 'greater_than_or_equal', value: 1000 }]);
    expect(config.addresses).toEqual([`0x${'ab'.repeat(20)}`]);
  });

  it('accepts between, in and is_empty with the right values', () => {
    const config = normalizeConfig(
      decl('chain.upgrade_detected'),
      {
        conditions: [
          { metric: 'duration_s', op: 'between', value: [60, 600] },
          { metric: 'weekday_utc', op: 'in', value: ['monday', 'friday'] },
          { metric: 'commit', op: 'is_not_empty' },
        ],
      },
      none,
    );
    expect(config.conditions).toHaveLength(3);
  });
});

describe('normalizeConfig, refused with 400 naming what is declared', () => {
  it('refuses an undeclared metric, naming the declared ones', () => {
    const error = refused('oracle.jump', { conditions: [{ metric: 'volume', op: '>', value: 1 }] });
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'filters.conditions.0.metric' });
    expect(error.validValues).toContain('change_pct');
  });

  it('refuses an operator of the wrong type, formula, and values of the wrong shape', () => {
    expect(refused('market.liquidation', { conditions: [{ metric: 'side', op: 'greater_than', value: 'long' }] }).param).toBe('filters.conditions.0.op');
    expect(refused('market.liquidation', { conditions: [{ metric: 'notional_usd', op: 'formula', value: 'x' }] }).message).toMatch(/reserved/);
    expect(refused('market.liquidation', { conditions: [{ metric: 'notional_usd', op: 'between', value: [5, 1] }] }).message).toMatch(/low <= high/);
    expect(refused('market.liquidation', { conditions: [{ metric: 'notional_usd', op: 'in', value: [] }] }).message).toMatch(/non-empty/);
    expect(refused('market.liquidation', { conditions: [{ metric: 'notional_usd', op: 'is_empty', value: 1 }] }).message).toMatch(/no value/);
    expect(refused('market.liquidation', { conditions: [{ metric: 'side', op: 'equal', value: 'sideways' }] }).validValues).toEqual(['long', 'short']);
    expect(refused('market.liquidation', { conditions: [{ metric: 'timestamp', op: 'after', value: 'yesterday' }] }).message).toMatch(/RFC 3339/);
  });

  it('refuses more than 16 conditions', () => {
    const conditions = Array.from({ length: 17 }, () => ({ metric: 'notional_usd', op: '>', value: 1 }));
    expect(refused('market.liquidation', { conditions }).message).toMatch(/16/);
  });

  it('bounds every list and string, naming the member, so a stored rule stays far below the item limit', () => {
    const huge = refused('market.liquidation', { symbols: Array.from({ length: 100_000 }, (_, i) => `S${i}`) });
    expect(huge).toMatchObject({ code: 'invalid_parameter', param: 'filters.symbols' });
    expect(huge.message).toMatch(/500/);
    expect(refused('market.liquidation', { symbols: ['X'.repeat(65)] }).param).toBe('filters.symbols');
    expect(refused('account.fill', { addresses: Array.from({ length: 1_001 }, (_, i) => `0x${String(i).padStart(40, '0')}`) }).param).toBe('filters.addresses');
    const list = refused('market.liquidation', { conditions: [{ metric: 'notional_usd', op: 'in', value: Array.from({ length: 101 }, (_, i) => i) }] });
    expect(list.param).toBe('filters.conditions.0.value');
    // At the bounds a rule is accepted, and its stored form is small.
    const stored = normalizeConfig(decl('market.liquidation'), { symbols: Array.from({ length: 500 }, (_, i) => `${'S'.repeat(60)}${i}`) }, none);
    expect(JSON.stringify(stored).length).toBeLessThan(64_000);
  });

  it('refuses params outside their range or menu, and undeclared params', () => {
    expect(refused('market.oi_delta', { params: { window_s: 120 } }).validValues).toEqual([300, 900, 3600]);
    expect(refused('market.breadth_cross', { threshold: 100 }).message).toMatch(/1 to 99/);
    expect(refused('market.liquidation', { params: { window_s: 300 } }).validValues).toEqual(['max_age_s']);
    expect(refused('market.liquidation', { max_age_s: 30 }).param).toBe('filters.params.max_age_s');
  });

  it('refuses venues the type does not cover and scope keys it does not take', () => {
    expect(refused('market.funding_flip', { venue: 'spot' }).validValues).toEqual(['perpx', 'hip3']);
    expect(refused('market.liquidation', { addresses: [`0x${'1'.repeat(40)}`] }).param).toBe('filters.addresses');
    expect(refused('market.breadth_cross', { symbols: ['BTC'] }).param).toBe('filters.symbols');
  });

  it('refuses min_notional_usd on types without a notional metric', () => {
    expect(refused('oracle.jump', { min_notional_usd: 10 }).param).toBe('filters.min_notional_usd');
  });

  it('refuses addresses that are not watched yet, and unknown members', () => {
    expect(refused('account.fill', { addresses: [`0x${'1'.repeat(40)}`] }).message).toMatch(/watched addresses first/);
    expect(refused('account.fill', { wallet: 'x' }).param).toBe('filters.wallet');
  });
});
