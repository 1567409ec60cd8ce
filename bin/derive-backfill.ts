/**
 * `npm run derive:backfill -- --from <day> --to <day> [--datasets oi_crossings,liquidation_minutes_1h] [--family perpx]` (local cloud running):
 * derives derived datasets (rollups, reductions, 1-minute candles, wallet statistics) again for
 * closed days from their sources' day files: days compacted before a rollup existed, so estimates
 * (and `/wallets/classify`) read them instead of replaying them. All derived datasets when --datasets is absent. Rerunning a day rewrites it.
 * In AWS the compact function does the same when invoked with `{ rederive: { from, to, datasets } }`.
 */
import { parseArgs } from 'node:util';
import { DERIVED_DATASETS, familiesOf, type DerivedDataset } from '../schemas/datasets.ts';
import { FAMILIES, type Family } from '../functions/core/venues.ts';
import { rederiveDays } from '../functions/core/archive/compact-derived.ts';
import { daysBetween } from '../functions/core/archive/layout.ts';
import { attachToRunningCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { archiveDeps } from '../functions/shared/archive-deps.ts';
import { plural, progressBar } from './progress.ts';

const { values } = parseArgs({
  options: { from: { type: 'string' }, to: { type: 'string' }, datasets: { type: 'string' }, family: { type: 'string' } },
});
const day = (text: string | undefined, name: string) => {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))) throw new Error(`--${name} must be a UTC day (YYYY-MM-DD)`);
  return text;
};
const from = day(values.from, 'from');
const to = day(values.to, 'to');
const datasets = (values.datasets?.split(',') ?? DERIVED_DATASETS) as DerivedDataset[];
const unknown = datasets.filter((d) => !DERIVED_DATASETS.includes(d));
if (unknown.length) throw new Error(`--datasets: ${unknown.join(', ')} not derived; choose from ${DERIVED_DATASETS.join(', ')}`);
if (values.family && !FAMILIES.includes(values.family as Family)) throw new Error(`--family is one of ${FAMILIES.join(', ')}`);
attachToRunningCloud(localSettings().LOCAL_DATA_DIR);

const started = Date.now();
const bar = progressBar('Deriving again', 'days');
const families = values.family ? [values.family as Family] : undefined;
const total = daysBetween(from, to).length * datasets.reduce((n, d) => n + familiesOf(d).filter((f) => !families || families.includes(f)).length, 0);
let done = 0;
bar.update(0, total);
const report = await rederiveDays(archiveDeps(), {
  datasets,
  families,
  from,
  to,
  onDay: () => bar.update(Math.min(total, ++done), total),
});
bar.stop();
console.log(
  `derived ${plural(report.partitions, 'day')} again (${report.derivedRowsWritten.toLocaleString()} rows in ${plural(report.filesWritten, 'file')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
