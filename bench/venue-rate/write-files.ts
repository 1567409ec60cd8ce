/**
 * `npm run venue:generate -- --out DIR [--minutes N] [--scale S] [--seed N] [--start ISO]`: writes
 * the venue-rate generator's market (functions/local/venue/generator.ts) as a node writes it, for
 * `npm run ingest` to bring in: `node_order_statuses_streaming/hourly/<YYYYMMDD>/<H>`, the same for
 * `node_raw_book_diffs_streaming` and `node_fills_streaming`, one event a line, the hourly file
 * turning by the clock; and `node_l4_snapshot/<height>`, the starting book and one every 5 minutes
 * (ingest times each by its block in the same run). BTC alone writes about 350 MB a minute.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { VenueRateGenerator } from '#local/venue/generator.ts';
import { venueBatches, type VenueFormat } from '#local/venue/batches.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    minutes: { type: 'string', default: '1' },
    scale: { type: 'string', default: '1' },
    seed: { type: 'string', default: '43' },
    start: { type: 'string', default: '2026-05-10T12:00:00Z' },
  },
});
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};
const out = values.out ?? fail('usage: npm run venue:generate -- --out DIR [--minutes N] [--scale S] [--seed N] [--start ISO]');
const minutes = Number(values.minutes);
const scale = Number(values.scale);
const startMs = Date.parse(values.start);
if (!(minutes > 0)) fail('--minutes must be a positive number');
if (!(scale >= 1)) fail('--scale must be at least 1 (BTC alone; about 4 is exchange-wide)');
if (Number.isNaN(startMs)) fail('--start must be an ISO time');

const generator = new VenueRateGenerator({ seed: Number(values.seed), scale, startMs });
const snapshot = (s: { height: number; text: string }) => {
  mkdirSync(join(out, 'node_l4_snapshot'), { recursive: true });
  writeFileSync(join(out, 'node_l4_snapshot', String(s.height)), s.text);
};
snapshot(generator.snapshot());
/** The node's hourly file of a block's time (its directory created on first use). */
const fileOf = (format: VenueFormat, ms: number) => {
  const iso = new Date(ms).toISOString();
  const dir = join(out, format, 'hourly', iso.slice(0, 10).replaceAll('-', ''));
  mkdirSync(dir, { recursive: true });
  return join(dir, String(Number(iso.slice(11, 13))));
};
let lines = 0;
for (const batch of venueBatches(generator, startMs + minutes * 60_000)) {
  // A batch spans seconds; the node turns its file by the clock, so a batch crossing an hour is written where its last block falls.
  for (const [format, { text, lines: n }] of Object.entries(batch.texts) as [VenueFormat, { text: string; lines: number }][]) {
    if (n > 0) appendFileSync(fileOf(format, batch.toMs), text);
    lines += n;
  }
  if (batch.snapshot) snapshot(batch.snapshot);
}
console.log(
  `${lines.toLocaleString()} lines over ${generator.markets.length} markets in ${out}; ${generator.resting.toLocaleString()} orders resting at the end; ${JSON.stringify(generator.counts)}`,
);
