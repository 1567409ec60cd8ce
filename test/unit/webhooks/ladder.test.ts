import { describe, expect, it } from 'vitest';
import { nextAttemptAt, plannedOffsetS, shouldAutoDisable } from '#core/webhooks/ladder.ts';

const HOUR_MS = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

/** Attempts a delivery gets: the first is attempt 1 (attemptsMade = 0), and so on while one is planned. */
function attemptTimes(firstAttemptAt: number, timeScale: number): number[] {
  const times: number[] = [];
  for (let made = 0; made < 1_000; made += 1) {
    const at = nextAttemptAt(firstAttemptAt, made, timeScale);
    if (at === undefined) break;
    times.push(at);
  }
  return times;
}

describe('plannedOffsetS', () => {
  it('returns the ladder offsets for attempts 1 to 7', () => {
    // Prepare
    const attempts = [1, 2, 3, 4, 5, 6, 7];
    // Act
    const offsets = attempts.map(plannedOffsetS);
    // Assess
    expect(offsets).toEqual([0, 5, 35, 155, 755, 4_355, 7_955]);
  });

  it('returns offsets an hour apart after the last rung', () => {
    // Prepare
    const attempts = [7, 8, 9, 20, 28];
    // Act
    const gaps = attempts.map((n) => plannedOffsetS(n + 1) - plannedOffsetS(n));
    // Assess
    expect(gaps).toEqual([3_600, 3_600, 3_600, 3_600, 3_600]);
    expect(plannedOffsetS(28)).toBe(4_355 + 22 * 3_600);
  });
});

describe('nextAttemptAt', () => {
  it('returns exactly 28 planned attempts within the 24 h window', () => {
    // Prepare
    const timeScale = 1;
    // Act
    const times = attemptTimes(T0, timeScale);
    // Assess
    expect(times).toHaveLength(28);
    expect(times[0]).toBe(T0);
    expect(nextAttemptAt(T0, 27, timeScale)).toBeDefined();
    expect(nextAttemptAt(T0, 28, timeScale)).toBeUndefined();
  });

  it('returns the last planned attempt less than 24 h after the first', () => {
    // Prepare
    const times = attemptTimes(T0, 1);
    // Act
    const span = times.at(-1)! - times[0]!;
    // Assess
    expect(span).toBe(83_555_000);
    expect(span).toBeLessThan(24 * HOUR_MS);
  });

  it('returns offsets divided by the time scale while keeping 28 attempts when timeScale is 3600', () => {
    // Prepare
    const timeScale = 3_600;
    // Act
    const scaled = attemptTimes(T0, timeScale);
    // Assess
    expect(scaled).toHaveLength(28);
    const unscaled = attemptTimes(T0, 1);
    scaled.forEach((at, i) => {
      expect(at - T0).toBeCloseTo((unscaled[i]! - T0) / 3_600, 3);
    });
    expect(nextAttemptAt(T0, 6, timeScale)! - T0).toBeCloseTo(7_955_000 / 3_600, 3);
    expect(scaled.at(-1)! - T0).toBeLessThan(24_000);
  });

  it('returns a time planned from the first attempt however late the earlier attempts ran', () => {
    // Prepare: attempts 2 to 4 ran two hours late; the schedule is still anchored at the first attempt.
    const lateThirdAttemptAt = T0 + 2 * HOUR_MS;
    // Act
    const fourth = nextAttemptAt(T0, 3, 1);
    const fifth = nextAttemptAt(T0, 4, 1);
    // Assess
    expect(fourth).toBe(T0 + 155_000);
    expect(fifth).toBe(T0 + 755_000);
    expect(fourth).toBeLessThan(lateThirdAttemptAt);
    expect(attemptTimes(T0, 1)).toHaveLength(28);
  });
});

describe('shouldAutoDisable', () => {
  it('returns false when 9 failures span 7 h', () => {
    // Prepare
    const now = T0 + 7 * HOUR_MS;
    // Act
    const disable = shouldAutoDisable(9, T0, now, 1);
    // Assess
    expect(disable).toBe(false);
  });

  it('returns false when 10 failures span 5 h 59 m', () => {
    // Prepare
    const now = T0 + 5 * HOUR_MS + 59 * 60_000;
    // Act
    const disable = shouldAutoDisable(10, T0, now, 1);
    // Assess
    expect(disable).toBe(false);
  });

  it('returns true when 10 failures span exactly 6 h', () => {
    // Prepare
    const now = T0 + 6 * HOUR_MS;
    // Act
    const disable = shouldAutoDisable(10, T0, now, 1);
    // Assess
    expect(disable).toBe(true);
  });

  it('returns true when 28 failures span 23 h', () => {
    // Prepare
    const now = T0 + 23 * HOUR_MS;
    // Act
    const disable = shouldAutoDisable(28, T0, now, 1);
    // Assess
    expect(disable).toBe(true);
  });

  it('returns true at 6 s and false at 5 s for 10 failures when timeScale is 3600', () => {
    // Prepare
    const timeScale = 3_600;
    // Act
    const atSix = shouldAutoDisable(10, T0, T0 + 6_000, timeScale);
    const atFive = shouldAutoDisable(10, T0, T0 + 5_000, timeScale);
    // Assess
    expect(atSix).toBe(true);
    expect(atFive).toBe(false);
  });
});
