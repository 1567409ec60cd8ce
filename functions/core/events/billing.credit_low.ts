import { declaration, pct, type EventDefinition } from './declare.ts';

export default {
  declaration: declaration({
    type: 'billing.credit_low', live: true, description: 'Credits remaining fell to a configured level', scope: 'user', venues: [],
    params: { levels_pct: { type: 'array_of_number', default: [25, 10, 0], min: 0, max: 100, unit: '%', description: 'Percent-remaining levels' } },
    metrics: { level_pct: pct('The level reached'), credits_remaining: { type: 'number' } },
  }),
  detection: { kind: 'announced', by: 'the credit ledger after a debit, through the events queue (core/billing/credits.ts)' },
} satisfies EventDefinition<'billing.credit_low'>;
