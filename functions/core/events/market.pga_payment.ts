import { DAY_MS, pgaPaymentsBetween, pgaTokenPrice } from './kit/reads.ts';
import { common, declaration, maxAge, minute, usd, type EventDefinition } from './declare.ts';
import { iso, inWindow, round } from './kit/format.ts';
import type { Candidate } from './kit/candidate.ts';
import { PGA, type PgaPayment } from './kit/reads.ts';
import { FAMILY_PREFIX } from '../venues.ts';

/**
 * `market.pga_payment`: priority gas auction payments on perpx, from 1.5 native tokens up, the
 * first 50 of each UTC day (in time order). `payments` must start at the UTC day of `from`.
 */
export function pgaPayments(payments: readonly PgaPayment[], from: number, to: number, tokenPriceUsd: number | null): Candidate<'market.pga_payment'>[] {
  const out: Candidate<'market.pga_payment'>[] = [];
  const perDay = new Map<number, number>();
  for (const p of [...payments].filter((q) => q.amount >= PGA.minAmount).sort((a, b) => a.ts - b.ts || a.trade_id - b.trade_id)) {
    const day = Math.floor(p.ts / 86_400_000);
    const seen = (perDay.get(day) ?? 0) + 1;
    perDay.set(day, seen);
    if (seen > PGA.perDay || !inWindow(p.ts, from, to)) continue;
    const fields = {
      venue: 'perpx' as const,
      symbol: PGA.token,
      timestamp: iso(p.ts),
      amount: p.amount,
      token: PGA.token,
      notional_usd: tokenPriceUsd === null ? null : round(p.amount * tokenPriceUsd, 2),
    };
    out.push({
      type: 'market.pga_payment',
      key: `pga:${p.trade_id}`,
      occurredAt: p.ts,
      venue: 'perpx',
      symbol: PGA.token,
      address: null,
      metrics: fields,
      data: {
        ...fields,
        market: p.symbol,
        payer: p.payer,
        payment_of_day: seen,
        api_url: `${FAMILY_PREFIX.perpx}/trades/${encodeURIComponent(p.symbol)}?start=${p.ts}&end=${p.ts + 1}`,
      },
    });
  }
  return out;
}

export default {
  declaration: declaration({
    type: 'market.pga_payment',
    live: true,
    description: 'A priority gas auction payment; symbols name the payment token',
    scope: 'public',
    venues: ['perpx'],
    scopeKeys: ['venue', 'symbols'],
    params: maxAge(),
    metrics: { ...common(['perpx']), amount: { type: 'number' }, token: { type: 'text' }, notional_usd: usd('Payment value') },
    notionalMetric: 'notional_usd',
    costFloor: { metric: 'amount', min: 1.5, note: 'Payments of 1.5 native tokens and up; at most 50 payment events per UTC day' },
  }),
  detection: minute({
    params: [],
    detect: async ({ archive, from, to }) => {
      const window = await pgaPaymentsBetween(archive, from, to);
      if (window.length === 0) return [];
      // The day's earlier payments count towards its 50; read only when the window has one to judge.
      const dayStart = Math.floor(from / DAY_MS) * DAY_MS;
      const earlier = from > dayStart ? await pgaPaymentsBetween(archive, dayStart, from) : [];
      return pgaPayments([...earlier, ...window], from, to, await pgaTokenPrice(archive, to));
    },
  }),
  preview: {
    estimate: {
      metric: 'amount',
      // The day's first 50 payments are among the first 50 of their market and hour: the reduction keeps those.
      reduced: {
        rows: { reduction: 'pga_payments_1h' },
        bySymbol: false,
        since: (from) => Math.floor(from / DAY_MS) * DAY_MS,
        detect: async (rows, from, to, archive) =>
          pgaPayments(
            rows.map((r) => ({
              ts: Number(r.ts),
              trade_id: Number(r.trade_id),
              symbol: String(r.symbol),
              payer: (r.user_address as string | null) ?? null,
              amount: Number(r.amount),
            })),
            from,
            to,
            await pgaTokenPrice(archive, to),
          ),
        note: "notional_usd is valued at the payment token's last price in the hour before now, for every day of the window.",
      },
    },
  },
} satisfies EventDefinition<'market.pga_payment'>;
