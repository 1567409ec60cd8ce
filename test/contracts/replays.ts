/**
 * What every backend of the replay port (functions/ports/replays.ts) must do: a job created once,
 * transitions only from the states named, a partition counted once however often it is retried
 * (its occurrences overwritten, never doubled), and occurrences paged oldest first in partition
 * order without gaps or repeats. Each test works in accounts and jobs of its own.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ReplayJobRecord, ReplayOccurrence, ReplayStore } from '#ports/replays.ts';

const T0 = Date.UTC(2026, 10, 20);
const account = () => `acct_${randomUUID().slice(0, 8)}`;

export function replayJob(accountId: string, overrides: Partial<ReplayJobRecord> = {}): ReplayJobRecord {
  return {
    accountId,
    jobId: `rpl_${randomUUID().replaceAll('-', '')}`,
    state: 'queued',
    eventType: 'market.liquidation',
    config: { venue: ['perpx'], conditions: [], params: {}, min_notional_usd: 10_000 },
    deliver: false,
    from: T0,
    to: T0 + 3 * 86_400_000,
    createdAt: T0 + 5 * 86_400_000,
    partitionsTotal: 3,
    partitionsDone: 0,
    rowsScanned: 0,
    matched: 0,
    delivered: 0,
    ...overrides,
  };
}

const occurrence = (part: number, i: number, bulky = false): ReplayOccurrence => ({
  eventId: `evt_${part}_${i}`,
  occurredAt: T0 + part * 86_400_000 + i,
  data: { symbol: 'BTC', n: i, ...(bulky && { pad: 'x'.repeat(4_000) }) },
});

async function readAll(store: ReplayStore, jobId: string, limit: number): Promise<ReplayOccurrence[]> {
  const out: ReplayOccurrence[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const page = await store.occurrences(jobId, limit, after);
    expect(page.occurrences.length).toBeLessThanOrEqual(limit);
    out.push(...page.occurrences);
    if (page.next === undefined) return out;
    after = page.next;
  }
  throw new Error('occurrences: the pages never end');
}

export function replayStoreContract(store: () => ReplayStore): void {
  describe('ReplayStore', () => {
    it('creates a job once, readable in its account only, with or without a subscription', async () => {
      const a = account();
      const job = replayJob(a, { subscriptionId: 'sub_1', deliver: true });
      const bare = replayJob(a);
      await store().createJob(job);
      await store().createJob(bare);
      await expect(store().createJob({ ...job, eventType: 'market.other' })).rejects.toThrow();
      expect(await store().getJob(a, job.jobId)).toEqual(job);
      expect(await store().getJob(a, bare.jobId)).toEqual(bare);
      expect(await store().getJob(account(), job.jobId)).toBeUndefined();
    });

    it('moves a job only from the states named, once among concurrent movers, setting the fields given', async () => {
      const a = account();
      const job = replayJob(a);
      await store().createJob(job);
      const moves = await Promise.all(Array.from({ length: 4 }, () => store().transition(a, job.jobId, ['queued'], 'running', { startedAt: T0 })));
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect(await store().transition(a, job.jobId, ['queued'], 'canceled')).toBe(false);
      expect(await store().transition(a, job.jobId, ['running'], 'completed', { finishedAt: T0 + 1 })).toBe(true);
      expect(await store().getJob(a, job.jobId)).toEqual({ ...job, state: 'completed', startedAt: T0, finishedAt: T0 + 1 });
      expect(await store().transition(a, 'rpl_missing', ['queued'], 'running')).toBe(false);
    });

    it('counts a partition once however often it is retried, and none once the job stopped running', async () => {
      const a = account();
      const job = replayJob(a);
      await store().createJob(job);
      const result = { rowsScanned: 500, delivered: 2, occurrences: [occurrence(0, 0), occurrence(0, 1)] };
      const outcomes = await Promise.all([0, 1, 2].map(() => store().recordPartition(a, job.jobId, 0, result)));
      expect(outcomes.filter((o) => o === 'recorded')).toHaveLength(1);
      expect(await store().recordPartition(a, job.jobId, 0, result)).toBe('already_recorded');
      expect(await store().getJob(a, job.jobId)).toMatchObject({ partitionsDone: 1, rowsScanned: 500, matched: 2, delivered: 2 });
      expect((await store().occurrences(job.jobId, 10)).occurrences).toEqual(result.occurrences);
      await store().transition(a, job.jobId, ['queued'], 'canceled');
      expect(await store().recordPartition(a, job.jobId, 1, { rowsScanned: 9, delivered: 0, occurrences: [] })).toBe('not_running');
      expect(await store().getJob(a, job.jobId)).toMatchObject({ partitionsDone: 1, rowsScanned: 500 });
    });

    it("overwrites a retried partition's occurrences: a retry that finds fewer leaves none of the first attempt's behind", async () => {
      const a = account();
      const job = replayJob(a);
      await store().createJob(job);
      const many = Array.from({ length: 450 }, (_, i) => occurrence(0, i));
      await store().recordPartition(a, job.jobId, 0, { rowsScanned: 900, delivered: 0, occurrences: many });
      await store().recordPartition(a, job.jobId, 0, { rowsScanned: 900, delivered: 0, occurrences: many.slice(0, 10) });
      expect(await readAll(store(), job.jobId, 1_000)).toEqual(many.slice(0, 10));
      await store().recordPartition(a, job.jobId, 0, { rowsScanned: 900, delivered: 0, occurrences: [] });
      expect(await store().occurrences(job.jobId, 10)).toEqual({ occurrences: [] });
    });

    it('pages occurrences oldest first in partition order, whatever the page size, none twice and none lost', async () => {
      const a = account();
      const job = replayJob(a);
      await store().createJob(job);
      // Partitions recorded out of order; one large enough (and one bulky enough) to be stored in several pieces.
      const parts = new Map([
        [2, Array.from({ length: 3 }, (_, i) => occurrence(2, i))],
        [0, Array.from({ length: 430 }, (_, i) => occurrence(0, i))],
        [1, Array.from({ length: 90 }, (_, i) => occurrence(1, i, true))],
      ]);
      for (const [index, occurrences] of parts) await store().recordPartition(a, job.jobId, index, { rowsScanned: 1, delivered: 0, occurrences });
      const all = [...parts.get(0)!, ...parts.get(1)!, ...parts.get(2)!];
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 40, max: 600 }), async (limit) => {
          expect(await readAll(store(), job.jobId, limit)).toEqual(all);
        }),
        { numRuns: 8, examples: [[200], [430], [523], [600]] },
      );
      expect(await store().occurrences(`rpl_${randomUUID()}`, 10)).toEqual({ occurrences: [] });
    });
  });
}
