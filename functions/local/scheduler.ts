/** The EventBridge schedules: each SCHEDULES entry fires on its minute boundary, locally. */
import { randomUUID } from 'node:crypto';
import { SCHEDULES, type ScheduleDef } from '../resources.ts';
import { invoke } from './invoke.ts';
import type { LocalStateMachines } from './state-machines.ts';

export interface Scheduler {
  stop(): void;
}

function scheduledEvent(name: string, at: Date) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: at.toISOString(),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:000000000000:rule/${name}`],
    detail: {},
  };
}

/** The shortest period of a schedule that follows the time scale. */
const MIN_SCALED_PERIOD_MS = 1_000;

export function startScheduler(
  machines: LocalStateMachines,
  onError: (name: string, error: unknown) => void,
  timeScale = 1,
  /** Only the schedules that follow the time scale (the timer sweep): what a cloud with its other schedules off still needs. */
  scaledOnly = false,
  /** Schedules that skip their turn while this says so. */
  held: (name: string) => boolean = () => false,
): Scheduler {
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, number>();
  const fire = async (name: string, def: ScheduleDef) => {
    // A scaled schedule fires more often than a run may take: a run still going takes the turn,
    // for at most the schedule's own period (a hung run never holds the next one back longer than in AWS).
    if (held(name)) return;
    const startedAt = running.get(name);
    if (startedAt !== undefined && Date.now() - startedAt < def.everyMinutes * 60_000) return;
    running.set(name, Date.now());
    const event = scheduledEvent(name, new Date());
    try {
      if ('stateMachine' in def.target) await machines.run(def.target.stateMachine, event);
      else await invoke(def.target.function, event);
    } catch (error) {
      onError(name, error);
    } finally {
      running.delete(name);
    }
  };
  for (const [name, def] of Object.entries(SCHEDULES)) {
    if (scaledOnly && !def.followsTimeScale) continue;
    const periodMs = def.followsTimeScale ? Math.max(MIN_SCALED_PERIOD_MS, (def.everyMinutes * 60_000) / timeScale) : def.everyMinutes * 60_000;
    // Rate rules fire on the period boundary; align the first run to it.
    const first = setTimeout(
      () => {
        void fire(name, def);
        timers.push(setInterval(() => void fire(name, def), periodMs));
      },
      periodMs - (Date.now() % periodMs),
    );
    timers.push(first);
  }
  return {
    stop: () => {
      for (const t of timers) clearTimeout(t);
    },
  };
}
