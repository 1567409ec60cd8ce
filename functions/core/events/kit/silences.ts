/**
 * Silences in a stream of times (archive gaps, ingest stalls): when a silence was noticed and when
 * it ended, and the stable id of its incident.
 */
import { createHash } from 'node:crypto';
import { inWindow } from './format.ts';

export const incidentOf = (...parts: (string | number)[]) => createHash('sha256').update(parts.join('|')).digest('hex').slice(0, 16);

/** A silence longer than `thresholdMs` in a series of times: when it was noticed and when it ended (if it has). */
export function silences(times: readonly number[], thresholdMs: number, from: number, to: number) {
  const out: { state: 'stalled' | 'recovered'; at: number; since: number; until?: number }[] = [];
  for (let i = 0; i < times.length; i += 1) {
    const since = times[i]!;
    const next = times[i + 1];
    if (next !== undefined && next - since <= thresholdMs) continue;
    const noticed = since + thresholdMs;
    if (inWindow(noticed, from, to)) out.push({ state: 'stalled', at: noticed, since });
    if (next !== undefined && inWindow(next, from, to)) out.push({ state: 'recovered', at: next, since, until: next });
  }
  return out;
}
