import { describe, expect, it } from 'vitest';
import type { Candidate } from '#core/events/kit/candidate.ts';
import { relativeMetrics, type MarketReference, type ReferenceSource } from '#core/events/kit/relative-metrics.ts';
import { withReferences } from '#core/detect/dispatch.ts';
import type { Family } from '#core/venues.ts';

const ALICE = `0x${'a1'.repeat(20)}`;
const T = Date.UTC(2026, 10, 18, 12, 0, 30);
const REF_AT = Date.UTC(2026, 10, 18, 12, 0, 0);
const ref = (overrides: Partial<MarketReference> = {}): MarketReference => ({
  volume1hUsd: 1_000_000,
  volume24hUsd: 20_000_000,
  openInterestUsd: 5_000_000,
  at: REF_AT,
  ...overrides,
});

describe('relativeMetrics', () => {
  it('gives the notional as a percent of 1h and 24h volume and of open interest', () => {
    // Act
    const metrics = relativeMetrics('perpx', 'BTC', 50_000, ref());

    // Assess
    expect(metrics).toEqual({ notional_pct_volume_1h: 5, notional_pct_volume_24h: 0.25, notional_pct_oi: 1 });
  });

  it('gives null for a denominator under 10,000 USD and a number from 10,000 USD', () => {
    const under = relativeMetrics('perpx', 'BTC', 100, ref({ volume1hUsd: 9_999.99, volume24hUsd: 9_999.99, openInterestUsd: 9_999.99 }));
    const at = relativeMetrics('perpx', 'BTC', 100, ref({ volume1hUsd: 10_000, volume24hUsd: 10_000, openInterestUsd: 10_000 }));

    expect(under).toEqual({ notional_pct_volume_1h: null, notional_pct_volume_24h: null, notional_pct_oi: null });
    expect(at).toEqual({ notional_pct_volume_1h: 1, notional_pct_volume_24h: 1, notional_pct_oi: 1 });
  });

  it('gives null volume shares on altx-rh, which publishes no comparable volume', () => {
    const metrics = relativeMetrics('altx-rh', 'BTC', 50_000, ref());

    expect(metrics.notional_pct_volume_1h).toBeNull();
    expect(metrics.notional_pct_volume_24h).toBeNull();
    expect(metrics.notional_pct_oi).toBe(1);
  });

  it('gives no open-interest share for spot pairs, outcomes or altx-rh spot', () => {
    const cases: [Family, string][] = [
      ['spot', 'HYPE-USDC'],
      ['hip4', '#10'],
      ['altx-rh', 'BTC-USDG'],
    ];

    const oi = cases.map(([family, symbol]) => relativeMetrics(family, symbol, 50_000, ref()).notional_pct_oi);

    expect(oi).toEqual([null, null, null]);
    expect(relativeMetrics('spot', 'HYPE-USDC', 50_000, ref()).notional_pct_volume_1h).toBe(5);
  });

  it('adds the wallet share only when a wallet volume is given', () => {
    const without = relativeMetrics('perpx', 'BTC', 50_000, ref());
    const withWallet = relativeMetrics('perpx', 'BTC', 50_000, ref(), 200_000);
    const smallWallet = relativeMetrics('perpx', 'BTC', 50_000, ref(), 9_999);

    expect(without).not.toHaveProperty('notional_pct_wallet_volume_30d');
    expect(withWallet.notional_pct_wallet_volume_30d).toBe(25);
    expect(smallWallet).toHaveProperty('notional_pct_wallet_volume_30d', null);
  });

  it('gives every share as null without a market reference', () => {
    const metrics = relativeMetrics('perpx', 'BTC', 50_000, undefined);

    expect(metrics).toEqual({ notional_pct_volume_1h: null, notional_pct_volume_24h: null, notional_pct_oi: null });
  });
});

/** A reference source with fixed answers that records what it was asked. */
function stubSource(markets: Record<string, MarketReference>, wallets: Record<string, number> = {}) {
  const asked: string[] = [];
  const source: ReferenceSource = {
    async market(family, symbol, at) {
      asked.push(`market ${family} ${symbol} ${at}`);
      return markets[`${family} ${symbol}`];
    },
    async walletVolume30dUsd(address, at) {
      asked.push(`wallet ${address} ${at}`);
      return wallets[address];
    },
  };
  return { source, asked };
}

function candidate(type: string, overrides: Partial<Candidate> = {}): Candidate {
  return {
    type,
    key: `k:${type}`,
    occurredAt: T,
    venue: 'perpx',
    symbol: 'BTC',
    address: null,
    metrics: { notional_usd: 50_000 },
    data: { notional_usd: 50_000 },
    ...overrides,
  };
}

describe('withReferences', () => {
  it('adds the relative metrics and reference_at to a market.liquidation', async () => {
    // Prepare
    const { source, asked } = stubSource({ 'perpx BTC': ref() });

    // Act
    const [out] = await withReferences([candidate('market.liquidation')], source);

    // Assess
    const relative = { notional_pct_volume_1h: 5, notional_pct_volume_24h: 0.25, notional_pct_oi: 1 };
    expect(out!.metrics).toEqual({ notional_usd: 50_000, ...relative });
    expect(out!.data).toEqual({ notional_usd: 50_000, ...relative, reference_at: new Date(REF_AT).toISOString() });
    expect(asked).toEqual([`market perpx BTC ${T}`]);
  });

  it('adds the wallet share to an account.fill', async () => {
    const { source, asked } = stubSource({ 'perpx BTC': ref() }, { [ALICE]: 1_000_000 });

    const [out] = await withReferences([candidate('account.fill', { address: ALICE })], source);

    expect(out!.metrics).toMatchObject({ notional_pct_volume_1h: 5, notional_pct_wallet_volume_30d: 5 });
    expect(out!.data).toMatchObject({ notional_pct_wallet_volume_30d: 5, reference_at: new Date(REF_AT).toISOString() });
    expect(asked).toContain(`wallet ${ALICE} ${T}`);
  });

  it('gives a null wallet share when the wallet volume is unknown', async () => {
    const { source } = stubSource({ 'perpx BTC': ref() });

    const [out] = await withReferences([candidate('account.fill', { address: ALICE })], source);

    expect(out!.metrics).toHaveProperty('notional_pct_wallet_volume_30d', null);
  });

  it('leaves candidates of other types untouched', async () => {
    const { source, asked } = stubSource({ 'perpx BTC': ref() });
    const others = [candidate('market.funding_flip'), candidate('hip4.settlement', { venue: 'hip4', symbol: '#10' })];

    const out = await withReferences(others, source);

    expect(out).toEqual(others);
    expect(out[0]).toBe(others[0]);
    expect(asked).toEqual([]);
  });

  it('gives reference_at null and every relative metric null when the market has no reference', async () => {
    const { source } = stubSource({});

    const [out] = await withReferences([candidate('market.liquidation')], source);

    expect(out!.data.reference_at).toBeNull();
    expect(out!.metrics).toEqual({ notional_usd: 50_000, notional_pct_volume_1h: null, notional_pct_volume_24h: null, notional_pct_oi: null });
  });

  it('keeps candidates in their order', async () => {
    const { source } = stubSource({ 'perpx BTC': ref() });
    const input = [
      candidate('market.liquidation', { key: 'a' }),
      candidate('webhook.test', { key: 'b' }),
      candidate('account.liquidated', { key: 'c', address: ALICE }),
    ];

    const out = await withReferences(input, source);

    expect(out.map((c) => c.key)).toEqual(['a', 'b', 'c']);
    expect(out[2]!.metrics.notional_pct_oi).toBe(1);
  });
});
