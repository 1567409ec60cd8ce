/**
 * Events about one account: a credit level reached, an export job finished or failed. Each is one
 * occurrence for that account's rules only; its key makes a redelivered queue message, or a level
 * reached twice in a month by racing debits, one event.
 */
import type { UserEventMessage } from '../../../schemas/messages.ts';
import type { QueueSender } from '../../ports/queues.ts';
import type { Candidate } from './candidate.ts';

export function userEventCandidate(event: UserEventMessage): Candidate {
  const common = { occurredAt: event.at, venue: 'perpx' as const, symbol: null, address: null, accountId: event.account_id };
  if (event.type === 'billing.credit_low.v1') {
    const metrics = { level_pct: event.level_pct, credits_remaining: event.credits_remaining };
    return {
      ...common, type: 'billing.credit_low', key: `credits:${event.account_id}:${event.month}:${event.level_pct}`, metrics,
      data: { ...metrics, credits_limit: event.credits_limit, month: event.month, api_url: '/v1/webhooks/limits' },
    };
  }
  const type = event.status === 'completed' ? 'export.job.completed' : 'export.job.failed';
  return {
    ...common, type, key: `export:${event.job_id}:${event.status}`,
    metrics: { job_id: event.job_id, ...(event.error_message !== undefined && { error_message: event.error_message }) },
    data: { job_id: event.job_id, status: event.status, ...(event.error_message !== undefined && { error_message: event.error_message }), api_url: event.api_url },
  };
}

/** How producers (the credit ledger, the export jobs) hand an account event to the notify function. */
export async function announce(queues: QueueSender, event: UserEventMessage): Promise<void> {
  await queues.send('events', JSON.stringify(event));
}
