/**
 * The delivery rules as data (SPEC Limits): the retry ladder, the retry window and the endpoint
 * auto-disable rule, with the arithmetic that applies them. Every duration here is divided by the
 * local cloud's time scale (LOCAL_TIME_SCALE, 1 in AWS) so the whole ladder can be watched in minutes.
 */

/** Waits after the 1st, 2nd, ... failed attempt; after the last rung the wait stays hourly. */
export const RETRY_LADDER_S = [5, 30, 120, 600, 3_600] as const;
/** An undelivered delivery becomes `exhausted` this long after its first attempt. */
export const RETRY_WINDOW_S = 24 * 3_600;
/** An endpoint is auto-disabled after this many consecutive failed attempts, sustained this long. */
export const AUTO_DISABLE = { consecutiveFailures: 10, sustainedS: 6 * 3_600 } as const;
/** Catch-up deliveries more than this behind the occurrence carry `late: true`. */
export const LATE_AFTER_MS = 10 * 60_000;

/** Seconds from the first attempt at which attempt `n` (1-based) is planned. */
export function plannedOffsetS(n: number): number {
  let offset = 0;
  for (let failed = 1; failed < n; failed += 1) offset += RETRY_LADDER_S[Math.min(failed, RETRY_LADDER_S.length) - 1]!;
  return offset;
}

/**
 * When attempt `attemptsMade + 1` is due, or undefined when it would fall outside the retry window
 * (the delivery is then exhausted). Planned from the first attempt rather than from the last, so a
 * slow receiver or a late consumer never changes how many attempts a delivery gets: 28 on this ladder.
 */
export function nextAttemptAt(firstAttemptAt: number, attemptsMade: number, timeScale: number): number | undefined {
  const offsetS = plannedOffsetS(attemptsMade + 1);
  if (offsetS > RETRY_WINDOW_S) return undefined;
  return firstAttemptAt + (offsetS * 1000) / timeScale;
}

/** Whether a failure streak of `failures` that began at `firstFailureAt` disables the endpoint at `now`. */
export function shouldAutoDisable(failures: number, firstFailureAt: number, now: number, timeScale: number): boolean {
  return failures >= AUTO_DISABLE.consecutiveFailures && now - firstFailureAt >= (AUTO_DISABLE.sustainedS * 1000) / timeScale;
}
