/**
 * `npm run breadth:backfill -- --start <ISO or ms> --end <ISO or ms> [--family perpx] [--target local|aws]`:
 * recomputes the breadth snapshot of every minute from 1-minute candles with the point-in-time
 * registry (the spec's recomputed core history), a UTC day per query. Rerunning a minute rewrites it. hip3 history is
 * live snapshots only, so the command refuses it unless --family hip3 is forced with --allow-hip3.
 */
import { parseArgs } from 'node:util';
import { snapshotRange } from '../functions/core/breadth/session.ts';
import { attachToRunningCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { breadthStore } from '../functions/shared/deps.ts';
import { plural, progressBar } from './progress.ts';

const { values } = parseArgs({
  options: {
    start: { type: 'string' },
    end: { type: 'string' },
    family: { type: 'string', default: 'perpx' },
    target: { type: 'string', default: 'local' },
    'allow-hip3': { type: 'boolean', default: false },
  },
});
const instant = (text: string | undefined, name: string) => {
  const ms = text === undefined ? NaN : /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`--${name} must be an ISO time or epoch ms`);
  return ms - (ms % 60_000);
};
const start = instant(values.start, 'start');
const end = instant(values.end ?? String(Date.now()), 'end');
const family = values.family === 'hip3' && values['allow-hip3'] ? 'hip3' : values.family === 'perpx' ? 'perpx' : undefined;
if (!family) throw new Error('--family must be perpx (hip3 history is live snapshots only; --allow-hip3 overrides)');
if (values.target === 'local') attachToRunningCloud(localSettings().LOCAL_DATA_DIR);

const deps = { ...archiveDeps(), breadth: breadthStore() };
const started = Date.now();
const days = Math.floor(end / 86_400_000) - Math.floor(start / 86_400_000) + 1;
const bar = progressBar(`Backfilling ${family} breadth`, 'days');
bar.update(0, days);
let done = 0;
const minutes = await snapshotRange(deps, family, start, end, () => bar.update(++done, days));
bar.stop();
console.log(`recomputed ${plural(minutes, `${family} minute`)} (${plural(days, 'day')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
