/**
 * The state machines' task payloads, declared once in schemas/messages.ts: what the code that starts
 * an execution sends reaches each task in a shape it parses, and a task handed anything else fails
 * at its entry with an error naming the task and the field, before it touches a store.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ExportExecutionInput, ExportPartitionTask, JobFinishTask, ReplayExecutionInput, ReplayPartitionTask } from '#schemas/messages.ts';
import { replayPartitions } from '#core/detect/replays.ts';
import { parseTaskPayload } from '#shared/workflow.ts';
import { handler as exportPartition } from '#functions/workflows/export-partition.ts';
import { handler as exportFinish } from '#functions/workflows/export-finish.ts';
import { handler as replayPartition } from '#functions/workflows/replay-partition.ts';
import { handler as replayFinish } from '#functions/workflows/replay-finish.ts';
import { lambdaContext } from '#test/helpers/events.ts';

const DAY = 86_400_000;
const FROM = Date.parse('2026-10-01T06:00:00Z');

describe('workflow payloads', () => {
  it('hand each partition task its job and one partition of the execution input (the Map item), in a shape it parses', () => {
    // Prepare
    const exportInput: ExportExecutionInput = {
      account_id: 'acct_1',
      job_id: 'exp_1',
      job: { accountId: 'acct_1', jobId: 'exp_1', schema: 'trades', family: 'perpx', from: FROM, to: FROM + DAY },
      partitions: [
        { i: 0, s: 'BTC', d: '2026-10-01' },
        { i: 1, s: 'BTC', d: '2026-10-02' },
      ],
    };
    const replayInput: ReplayExecutionInput = {
      account_id: 'acct_1',
      job_id: 'rpl_1',
      job: { accountId: 'acct_1', jobId: 'rpl_1' },
      partitions: replayPartitions(FROM, FROM + 2 * DAY),
    };
    // Act
    const exports = v.parse(ExportExecutionInput, exportInput).partitions.map((partition) => v.parse(ExportPartitionTask, { job: exportInput.job, partition }));
    const replays = v.parse(ReplayExecutionInput, replayInput).partitions.map((partition) => v.parse(ReplayPartitionTask, { job: replayInput.job, partition }));
    // Assess
    expect(exports.map((t) => t.partition.d)).toEqual(['2026-10-01', '2026-10-02']);
    expect(replays.map((t) => [t.partition.from, t.partition.to])).toEqual([
      [FROM, FROM + 18 * 3_600_000],
      [FROM + 18 * 3_600_000, FROM + 42 * 3_600_000],
      [FROM + 42 * 3_600_000, FROM + 2 * DAY],
    ]);
  });

  it('refuse a payload with an error naming the task and every field at fault', () => {
    expect(() => parseTaskPayload('export-finish', JobFinishTask, { account_id: 'a', outcome: 'done' })).toThrow(
      'Task export-finish received a payload it cannot run: job_id: Invalid key: Expected "job_id" but received undefined; outcome: Invalid type: Expected ("completed" | "failed") but received "done"',
    );
    expect(() => parseTaskPayload('export-partition', ExportPartitionTask, { job: {}, partition: { i: 0, s: 'BTC', d: '1 Oct' } })).toThrow(
      /partition\.d: must be a day YYYY-MM-DD/,
    );
    expect(() => parseTaskPayload('replay-partition', ReplayPartitionTask, 'not an object')).toThrow(
      /^Task replay-partition received a payload it cannot run: \(payload\): Invalid type/,
    );
  });

  it('refuse a bad payload at the entry of every task, before any store is asked', async () => {
    // The composition root would fail first on a store this process has no configuration for.
    const bad = { job: { accountId: 'acct_1' } };
    await expect(exportPartition(bad, lambdaContext)).rejects.toThrow(/^Task export-partition .*job\.jobId/);
    await expect(replayPartition(bad, lambdaContext)).rejects.toThrow(/^Task replay-partition .*job\.jobId/);
    await expect(exportFinish({ account_id: 'acct_1', job_id: 'exp_1', outcome: 'completed', error: 'boom' }, lambdaContext)).rejects.toThrow(
      /^Task export-finish .*error: Invalid type/,
    );
    await expect(replayFinish({}, lambdaContext)).rejects.toThrow(/^Task replay-finish .*account_id/);
  });
});
