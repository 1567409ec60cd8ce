/** What an engine pause on a rule is called where owners read it (a rule, the limits, a resume). */
const PAUSE_MESSAGES: Readonly<Record<string, string>> = {
  deliveries_per_day_cap: 'Paused: the account reached its deliveries per day. Nothing is buffered; resume after the budget resets at 00:00 UTC.',
  plan_no_webhooks: "Paused: the account's plan does not include webhook delivery.",
};

export const pauseMessage = (reason: string) => PAUSE_MESSAGES[reason] ?? 'Paused by the delivery engine.';
