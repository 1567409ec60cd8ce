/**
 * `npm run bench [-- --hours N --deliveries N --detection-batches N --day-hours N --days N --symbols N --soak-minutes N --soak-idle-minutes N --cost-deliveries N --first-start-days N --minutes N --scale S --only archive,compaction,market,derivatives,orderbook,breadth,deliveries,delivery-cost,detection,positions,export,quality,previews,venue-rate,venue-detection,first-start,soak]`:
 * prints speed and memory figures, merges each bench's into `bench/bench-results.json` and renders
 * `bench/RESULTS.md` from it (bench/results.ts). Benchmarks print; tests never assert on time.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { FIGURES } from './stats.ts';
import { EMPTY_RESULTS, mergeRun, parseResults, renderResults, serializeResults } from './results.ts';
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
import { benchVenueRate } from './venue-rate/bench.ts';
import { benchVenueDetection } from './venue-rate/detection.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';

const { values } = parseArgs({
  options: {
    hours: { type: 'string', default: '12' },
    deliveries: { type: 'string', default: '2000' },
    'cost-deliveries': { type: 'string', default: '100' },
    'detection-batches': { type: 'string', default: '20' },
    'day-hours': { type: 'string', default: '24' },
    days: { type: 'string', default: '30' },
    symbols: { type: 'string', default: '1' },
    only: { type: 'string' },
    'soak-minutes': { type: 'string', default: '10' },
    'first-start-days': { type: 'string', default: '3' },
    'soak-idle-minutes': { type: 'string', default: '2' },
    minutes: { type: 'string', default: '10' },
    scale: { type: 'string', default: '1' },
  },
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
  // The venue's rate (issue 43): `--minutes` of BTC's mainnet figures (`--scale 3.8`: exchange-wide) ingested, compacted and read.
  'venue-rate': () => benchVenueRate({ minutes: Number(values.minutes), scale: Number(values.scale) }),
  // Detection at that rate: the same market's rows through ingest's detection, 1,000 rules, 10,000 watched addresses.
  'venue-detection': () => benchVenueDetection({ minutes: Number(values.minutes), scale: Number(values.scale) }),
  // A first `npm start` (3 days seeded by default, as `npm start`'s own): minutes of CPU.
  'first-start': () => benchFirstStart({ days: Number(values['first-start-days']) }),
  // Last: a 10-minute load and a 2-minute idle on the whole local cloud (`--only soak --soak-minutes 2` for a short one).
  soak: () => benchSoak({ minutes: Number(values['soak-minutes']), idleMinutes: Number(values['soak-idle-minutes']) }),
};
const chosen = values.only?.split(',') ?? Object.keys(BENCHES);
const unknown = chosen.filter((name) => !BENCHES[name]);
if (unknown.length) throw new Error(`Unknown bench ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
const RESULTS_JSON = new URL('./bench-results.json', import.meta.url);
const RESULTS_MD = new URL('./RESULTS.md', import.meta.url);
// Read (and refused if malformed) before any bench runs, so a long run never ends unable to record.
let results = existsSync(RESULTS_JSON) ? parseResults(readFileSync(RESULTS_JSON, 'utf8'), 'bench/bench-results.json') : EMPTY_RESULTS;
/** Written after each bench, so a bench that fails later in the run does not lose the figures of those before it. */
function record(bench: string, from: number, started: { at: string; load: number }): void {
  // Benches run one after another in this process: the memory after one includes what those before it left.
  const figures = [
    ...FIGURES.slice(from),
    { name: 'resident memory of the bench process after this bench', value: process.memoryUsage().rss / 2 ** 20, unit: 'MB' },
  ];
  results = mergeRun(results, bench, figures, { at: started.at, node: process.version, cores: cpus().length, load: [started.load, loadavg()[0]!] });
  for (const [file, text] of [
    [RESULTS_JSON, serializeResults(results)],
    [RESULTS_MD, renderResults(results)],
  ] as const) {
    const path = fileURLToPath(file);
    writeFileSync(`${path}.partial`, text);
    renameSync(`${path}.partial`, path);
  }
}
console.log(`Node ${process.version}, ${cpus().length} cores`);
for (const name of chosen) {
  const from = FIGURES.length;
  const started = { at: new Date().toISOString(), load: loadavg()[0]! };
  await BENCHES[name]!();
  record(name, from, started);
}
const memory = process.memoryUsage();
console.log(
  `\nMemory at the end of the run: rss ${(memory.rss / 2 ** 20).toFixed(0)} MB, heap ${(memory.heapUsed / 2 ** 20).toFixed(0)} MB; figures in bench/bench-results.json and bench/RESULTS.md`,
);
