/**
 * `npm run seed -- --days N --markets M`: builds a larger demo archive in LOCAL_DATA_DIR through the
 * real ingest path (landing objects, S3 notifications, the ingest queue and function), compacts it,
 * and exits. Stop `npm start` first: both use the same data directory.
 */
import { parseArgs } from 'node:util';
import { startLocalCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { invoke } from '../functions/local/invoke.ts';
import { plural, progressBar } from './progress.ts';

const { values } = parseArgs({ options: { days: { type: 'string', default: '3' }, markets: { type: 'string', default: '60' } } });
const days = Number(values.days);
const markets = Number(values.markets);
if (!(days > 0 && days <= 30)) throw new Error('--days must be from 1 to 30');
if (!(Number.isInteger(markets) && markets >= 60)) throw new Error('--markets (core perps) must be an integer of at least 60');

const settings = localSettings();
const started = Date.now();
const bar = progressBar(`Seeding ${plural(days, 'day')}`, 'batches');
const cloud = await startLocalCloud({
  port: 0,
  dataDir: settings.LOCAL_DATA_DIR,
  apiKeys: settings.LOCAL_API_KEYS,
  schedules: false,
  logLevel: settings.LOG_LEVEL,
  demo: {
    days,
    seed: settings.DEMO_SEED,
    intensity: settings.DEMO_INTENSITY,
    l2IntervalMs: settings.DEMO_L2_INTERVAL_S * 1000,
    orderLevelHours: settings.DEMO_ORDER_LEVEL_HOURS,
    extraCoreMarkets: markets - 60,
    onProgress: ({ written, total, ingested, records }) => bar.update(ingested, total, `${written} written, ${records.toLocaleString('en-US')} records`),
  },
});
await cloud.demo!.seeded;
bar.stop();
process.stderr.write('compacting…\n');
console.log(JSON.stringify(await invoke('compact', {})));
await cloud.stop();
console.log(`seeded ${plural(days, 'day')} with ${markets}+ core markets into ${settings.LOCAL_DATA_DIR} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
