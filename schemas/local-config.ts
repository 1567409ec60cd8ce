/** Settings of the local cloud (`npm start`), read once from the environment. */
import * as v from 'valibot';
import { PLAN_NAMES, type PlanName } from './plans.ts';

const DEFAULT_KEYS = 'local-build-key=build,local-pro-key=pro,local-free-key=free';

const apiKeyList = v.pipe(
  v.optional(v.string(), DEFAULT_KEYS),
  v.transform((text) =>
    text
      .split(',')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const [key = '', plan = ''] = pair.split('=').map((s) => s.trim());
        return { key, plan };
      }),
  ),
  v.check((pairs) => pairs.length > 0, 'must list at least one key=plan pair'),
  v.check((pairs) => pairs.every((p) => p.key.length >= 8), 'each key must be at least 8 characters'),
  v.check((pairs) => pairs.every((p) => (PLAN_NAMES as readonly string[]).includes(p.plan)), `each plan must be one of ${PLAN_NAMES.join(', ')}`),
  v.transform((pairs) => pairs as { key: string; plan: PlanName }[]),
);

export const LocalConfigSchema = v.object({
  PORT: v.pipe(
    v.optional(v.string(), '3000'),
    v.regex(/^\d{1,5}$/, 'must be a TCP port number'),
    v.transform(Number),
    v.maxValue(65535, 'must be a TCP port number'),
  ),
  LOCAL_DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), '.data'),
  LOCAL_API_KEYS: apiKeyList,
  /** Days of demo market history seeded on first start; 0 turns the demo market off. */
  DEMO_DAYS: v.pipe(v.optional(v.string(), '3'), v.regex(/^\d+$/, 'must be a whole number of days'), v.transform(Number), v.maxValue(30, 'must be at most 30')),
  DEMO_SEED: v.pipe(v.optional(v.string(), '42'), v.regex(/^\d+$/, 'must be a whole number'), v.transform(Number)),
  /** Trade and order arrival rate of the demo market (1 is about 4.5 trades a second over all markets). */
  DEMO_INTENSITY: v.pipe(
    v.optional(v.string(), '0.3'),
    v.regex(/^\d+(\.\d+)?$/, 'must be a positive number'),
    v.transform(Number),
    v.minValue(0.01, 'must be at least 0.01'),
    v.maxValue(10, 'must be at most 10'),
  ),
  /**
   * Hours of order-level (L4) books seeded before now (diffs and checkpoints; the order books of all
   * markets change about 30 times a second in all, 2.5 million diffs a day, so seeding days of them
   * would dwarf the rest). Native snapshots cover the whole seeded history; live L4 runs from here on.
   */
  DEMO_ORDER_LEVEL_HOURS: v.pipe(
    v.optional(v.string(), '6'),
    v.regex(/^\d+$/, 'must be a whole number of hours'),
    v.transform(Number),
    v.maxValue(720, 'must be at most 720'),
  ),
  /**
   * Hours seeded first on a first start, from a market that starts afresh there and goes on live at
   * once; the older days follow (0: one continuous simulation from the first day, live after it).
   */
  DEMO_NEAR_HOURS: v.pipe(
    v.optional(v.string(), '1'),
    v.regex(/^\d+$/, 'must be a whole number of hours'),
    v.transform(Number),
    v.maxValue(720, 'must be at most 720'),
  ),
  /** Native L2 snapshot cadence per market in the demo market, seconds. */
  DEMO_L2_INTERVAL_S: v.pipe(
    v.optional(v.string(), '120'),
    v.regex(/^\d+$/, 'must be a whole number of seconds'),
    v.transform(Number),
    v.minValue(1, 'must be at least 1'),
  ),
  /**
   * Monthly credits of each local key (instead of its plan's 50,000 to 2 billion), counted afresh at
   * every start, so `billing.credit_low` fires after a few hundred requests. `plan` keeps the plan's.
   */
  LOCAL_MONTHLY_CREDITS: v.pipe(
    v.optional(v.string(), '500'),
    v.regex(/^(\d+|plan)$/, 'must be a whole number of credits or plan'),
    v.transform((s) => (s === 'plan' ? undefined : Number(s))),
  ),
  LOG_LEVEL: v.optional(v.picklist(['DEBUG', 'INFO', 'WARN', 'ERROR'], 'must be DEBUG, INFO, WARN or ERROR'), 'WARN'),
});

export type LocalConfig = v.InferOutput<typeof LocalConfigSchema>;
