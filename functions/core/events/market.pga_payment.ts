import { pgaPayments } from '../detect/minute-detectors.ts';
import { DAY_MS, pgaPaymentsBetween, pgaTokenPrice } from '../detect/minute-reads.ts';
import { common, declaration, maxAge, minute, usd, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'market.pga_payment', live: true, description: 'A priority gas auction payment; symbols name the payment token', scope: 'public', venues: ['perpx'], scopeKeys: ['venue', 'symbols'],
    params: maxAge(), metrics: { ...common(['perpx']), amount: { type: 'number' }, token: { type: 'text' }, notional_usd: usd('Payment value') },
    notionalMetric: 'notional_usd', costFloor: { metric: 'amount', min: 1.5, note: 'Payments of 1.5 native tokens and up; at most 50 payment events per UTC day' },
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
  preview: { estimate: { metric: 'amount' } },
} satisfies EventDefinition<'market.pga_payment'>;
