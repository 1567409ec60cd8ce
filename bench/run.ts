/**
 * `npm run bench [-- --hours N --deliveries N --detection-batches N --day-hours N --days N --symbols N --soak-minutes N --soak-idle-minutes N --cost-deliveries N --first-start-days N --only archive,compaction,market,derivatives,orderbook,breadth,deliveries,delivery-cost,detection,positions,export,quality,previews,first-start,soak]`:
 * prints speed and memory figures. Benchmarks print; tests never assert on time.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { FIGURES } from './stats.ts';
import { benchArchive, benchCompactionDay } from './archive.ts';
import { benchMarket } from './market.ts';
import { benchDerivatives } from './derivatives.ts';
import { benchOrderbook } from './orderbook.ts';
import { benchBreadth } from './breadth.ts';
import { benchDeliveries } from './deliveries.ts';
import { benchDeliveryCost } from './delivery-cost.ts';
import { benchDetection } from './detection.ts';
import { benchPositions } from './positions.ts';
import { benchExport } from './export.ts';
import { benchPreviews } from './previews.ts';
import { benchSoak } from './soak.ts';
import { benchQuality } from './quality.ts';
import { benchFirstStart } from './first-start.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';

const { values } = parseArgs({
  options: { hours: { type: 'string', default: '12' }, deliveries: { type: 'string', default: '2000' }, 'cost-deliveries': { type: 'string', default: '100' }, 'detection-batches': { type: 'string', default: '20' }, 'day-hours': { type: 'string', default: '24' },
    days: { type: 'string', default: '30' }, symbols: { type: 'string', default: '1' }, only: { type: 'string' },
    'soak-minutes': { type: 'string', default: '10' }, 'first-start-days': { type: 'string', default: '3' }, 'soak-idle-minutes': { type: 'string', default: '2' } },
});
const BENCHES: Readonly<Record<string, () => Promise<void>>> = {
  archive: () => benchArchive({ hours: Number(values.hours) }),
  compaction: () => benchCompactionDay({ hours: Number(values['day-hours']) }),
  market: () => benchMarket({ days: Number(values.days), symbols: Number(values.symbols) }),
  derivatives: benchDerivatives,
  orderbook: benchOrderbook,
  breadth: benchBreadth,
  // The burst's latency, then the counted cost of exhausted deliveries (also alone as delivery-cost).
  deliveries: async () => {
    await benchDeliveries({ deliveries: Number(values.deliveries) });
    await benchDeliveryCost({ deliveries: Number(values['cost-deliveries']) });
  },
  'delivery-cost': () => benchDeliveryCost({ deliveries: Number(values['cost-deliveries']) }),
  detection: () => benchDetection({ batches: Number(values['detection-batches']) }),
  positions: benchPositions,
  export: benchExport,
  quality: benchQuality,
  previews: benchPreviews,
  // A first `npm start` (3 days seeded by default, as `npm start`'s own): minutes of CPU.
  'first-start': () => benchFirstStart({ days: Number(values['first-start-days']) }),
  // Last: a 10-minute load and a 2-minute idle on the whole local cloud (`--only soak --soak-minutes 2` for a short one).
  soak: () => benchSoak({ minutes: Number(values['soak-minutes']), idleMinutes: Number(values['soak-idle-minutes']) }),
};
const chosen = values.only?.split(',') ?? Object.keys(BENCHES);
const unknown = chosen.filter((name) => !BENCHES[name]);
if (unknown.length) throw new Error(`Unknown bench ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
console.log(`Node ${process.version}, ${cpus().length} cores`);
for (const name of chosen) await BENCHES[name]!();
const memory = process.memoryUsage();
FIGURES.push({ name: 'resident memory at the end of the run', value: memory.rss / 2 ** 20, unit: 'MB' });
writeFileSync('bench-results.json', `${JSON.stringify({ node: process.version, cores: cpus().length, at: new Date().toISOString(), benches: chosen, figures: FIGURES }, null, 2)}\n`);
console.log(`\nMemory at the end of the run: rss ${(memory.rss / 2 ** 20).toFixed(0)} MB, heap ${(memory.heapUsed / 2 ** 20).toFixed(0)} MB; figures in bench-results.json`);
