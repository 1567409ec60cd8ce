/** `npm run bench [-- --hours N --deliveries N --detection-batches N]`: prints speed and memory figures. Benchmarks print; tests never assert on time. */
import { parseArgs } from 'node:util';
import { benchArchive } from './archive.ts';
import { benchMarket } from './market.ts';
import { benchBreadth } from './breadth.ts';
import { benchDeliveries } from './deliveries.ts';
import { benchDetection } from './detection.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';

const { values } = parseArgs({ options: { hours: { type: 'string', default: '12' }, deliveries: { type: 'string', default: '2000' }, 'detection-batches': { type: 'string', default: '20' } } });
console.log(`Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
await benchArchive({ hours: Number(values.hours) });
await benchMarket();
await benchBreadth();
await benchDeliveries({ deliveries: Number(values.deliveries) });
await benchDetection({ batches: Number(values['detection-batches']) });
const memory = process.memoryUsage();
console.log(`\nPeak-ish memory: rss ${(memory.rss / 2 ** 20).toFixed(0)} MB, heap ${(memory.heapUsed / 2 ** 20).toFixed(0)} MB`);
