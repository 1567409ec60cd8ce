/**
 * Compaction's first tier (compact.ts): an open day's ingest deltas, one per batch, merged into
 * delta compactions, one per UTC hour their rows touch.
 */
import type { Family } from '../venues.ts';
import type { IngestedDataset } from '#schemas/datasets.ts';
import type { ArchiveDeps, ArchiveFile } from '#ports/archive.ts';
import { createMerged, partsOf, version, writeParts } from './compact-write.ts';
import { retire } from './compact-derived.ts';
import { type CompactionReport, hourOf, slotRange } from './compact-slot.ts';

/**
 * Merges the ingest deltas of an open day into delta compactions, one per UTC hour their rows
 * touch. Only the last one written lists the ingest deltas as replaced: until then they stay
 * visible beside the first ones (overlapping rows collapse), so no row is ever hidden.
 */
export async function mergeIngestDeltas(
  deps: ArchiveDeps,
  dataset: IngestedDataset,
  family: Family,
  day: string,
  raw: ArchiveFile[],
  report: CompactionReport,
): Promise<ArchiveFile[]> {
  const hours = [
    ...new Set(
      raw.flatMap((d) => {
        const span: number[] = [];
        for (let h = hourOf(d.minTs); h <= hourOf(d.maxTs); h++) span.push(h);
        return span;
      }),
    ),
  ].sort((a, b) => a - b);
  const paths = await deps.files.paths(raw);
  const written: ArchiveFile[] = [];
  await deps.sql.session(async (session) => {
    for (const hour of hours) {
      await createMerged(session, dataset, paths, slotRange(day, { tier: 'hour', hour }));
      const parts = await partsOf(session, false);
      written.push(
        ...(await writeParts(
          deps,
          session,
          dataset,
          parts,
          () => ({
            fileId: `m-${version(deps)}-h${hour}`,
            dataset,
            family,
            day,
            kind: 'delta',
            tier: 'minute',
            hour,
            replaces: [],
          }),
          report,
        )),
      );
    }
  });
  const last = written.at(-1);
  if (last) await deps.manifest.putFile({ ...last, replaces: raw.map((d) => d.fileId) });
  // The last delta compaction written replaces the ingest deltas; only then may they go.
  if (written.length > 0) await retire(deps, raw, report);
  return written;
}
