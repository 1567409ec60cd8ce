import { declaration, pct, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'billing.credit_low',
    live: true,
    description: 'Credits remaining fell to a configured level',
    scope: 'user',
    venues: [],
    params: { levels_pct: { type: 'array_of_number', default: [25, 10, 0], min: 0, max: 100, unit: '%', description: 'Percent-remaining levels' } },
    metrics: { level_pct: pct('The level reached'), credits_remaining: { type: 'number' } },
    // A level fires only for rules that list it.
    listedBy: { param: 'levels_pct', metric: 'level_pct' },
  }),
  detection: {
    kind: 'announced',
    by: 'the credit ledger after a debit, through the events queue (core/billing/credits.ts)',
    // One event per account, month and level: racing debits that reach a level twice are one event.
    of: (event) => {
      if (event.type !== 'billing.credit_low.v1') return undefined;
      const metrics = { level_pct: event.level_pct, credits_remaining: event.credits_remaining };
      return {
        type: 'billing.credit_low',
        key: `credits:${event.account_id}:${event.month}:${event.level_pct}`,
        occurredAt: event.at,
        venue: 'perpx',
        symbol: null,
        address: null,
        accountId: event.account_id,
        metrics,
        data: { ...metrics, credits_limit: event.credits_limit, month: event.month, api_url: '/v1/webhooks/limits' },
      };
    },
  },
} satisfies EventDefinition<'billing.credit_low'>;
