/**
 * The one progress bar of the command-line tools (`npm start`'s seed, `npm run seed`,
 * `npm run breadth:backfill`): cli-progress on stderr, redrawn on a terminal and printed every
 * 10 s into a log file.
 */
import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  update(done: number, total: number, detail?: string): void;
  stop(): void;
}

export function progressBar(label: string, unit: string): Progress {
  const bar = new SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit}{detail}`,
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 10_000,
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.legacy,
  );
  let started = false;
  return {
    update(done, total, detail) {
      const payload = { detail: detail ? ` | ${detail}` : '' };
      if (!started) {
        bar.start(total, done, payload);
        started = true;
      }
      bar.setTotal(total);
      bar.update(done, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** `n` with its noun, singular for one ("1 day", "2 days"). */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
