/**
 * Events about one account: a credit level reached, an export job finished or failed. Each is one
 * occurrence for that account's rules only, read from the message by the type that announces it
 * (its definition's `of`); its key makes a redelivered queue message one event.
 */
import type { UserEventMessage } from '#schemas/messages.ts';
import type { QueueSender } from '#ports/queues.ts';
import type { Candidate } from '../events/kit/candidate.ts';
import { ANNOUNCED_TYPES } from '../events/registry.ts';

export function userEventCandidate(event: UserEventMessage): Candidate {
  for (const { detection } of ANNOUNCED_TYPES) {
    const candidate = detection.of?.(event);
    if (candidate) return candidate;
  }
  // The message schema and the announced types are one set: a message no type reads is a programming error.
  throw new Error(`No event type reads the ${event.type} message`);
}

/** How producers (the credit ledger, the export jobs) hand an account event to the notify function. */
export async function announce(queues: QueueSender, event: UserEventMessage): Promise<void> {
  await queues.send('events', JSON.stringify(event));
}
