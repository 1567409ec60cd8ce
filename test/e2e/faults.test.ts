/**
 * The fault suite: the local cloud (`npm start`, a child process) is stopped while deliveries are
 * pending, in flight and waiting on the rungs of the retry ladder, then started again on the same
 * data; every delivery must reach the receiver at least once. Each scenario has a cloud, a data
 * directory and a receiver of its own, so the two run at once (the file waits as long as the
 * crash does, not as long as both).
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/api.ts';
import { faultSuite, KEY } from '../helpers/fault-suite.ts';

describe.concurrent('deliveries across a crash and a restart', () => {
  const suite = faultSuite();

  // The records are durable, and the overdue sweep sends again the jobs the in-memory queue lost.
  it('delivers every delivery at least once after kill -9 with deliveries waiting on the ladder, in flight and pending', async () => {
    const endpointId = await suite.createEndpoint('/faults');
    // Waiting on the ladder: refused for a while, so they sit on the 5 s to 2 min rungs (scaled) when the cloud dies.
    suite.answer(503);
    const retrying = await suite.queueTests(endpointId, 12);
    await eventually(() => retrying.every((id) => suite.attemptsOf(id) >= 2), Boolean);
    // In flight: the receiver holds the connections open.
    suite.answer('hang');
    const inFlight = await suite.queueTests(endpointId, 6);
    await eventually(() => inFlight.every((id) => suite.deliveredIds('/faults').has(id)), Boolean);
    // Pending: queued in the last instant before the crash.
    const pending = await suite.queueTests(endpointId, 6);

    await suite.stopCloud('SIGKILL');
    suite.answer(200);
    await suite.startCloud();

    const all = [...retrying, ...inFlight, ...pending];
    await suite.awaitAccepted(endpointId, all);
    const log = await suite.call(KEY, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=200`);
    const states = new Map((log.body.data as any[]).map((d) => [d.event_id, d.state]));
    expect(all.map((id) => states.get(id))).toEqual(all.map(() => 'delivered'));
  });
});

describe.concurrent('deliveries across a clean stop and a restart', () => {
  const suite = faultSuite();

  it("delivers everything after Ctrl-C's SIGINT in the same state", async () => {
    const endpointId = await suite.createEndpoint('/faults');
    suite.answer(503);
    const retrying = await suite.queueTests(endpointId, 8);
    await eventually(() => retrying.every((id) => suite.attemptsOf(id) >= 2), Boolean);
    const pending = await suite.queueTests(endpointId, 4);

    await suite.stopCloud('SIGINT');
    suite.answer(200);
    await suite.startCloud();

    await suite.awaitAccepted(endpointId, [...retrying, ...pending]);
  });
});
