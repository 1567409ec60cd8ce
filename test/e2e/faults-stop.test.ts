/**
 * The fault suite, a clean stop: the local cloud (`npm start`, a child process) is stopped with
 * Ctrl-C's SIGINT while deliveries are pending and waiting on the rungs of the retry ladder, then
 * started again on the same data; every delivery reaches the receiver.
 */
import { describe, it } from 'vitest';
import { eventually } from '../helpers/api.ts';
import { faultSuite } from '../helpers/fault-suite.ts';

const suite = faultSuite();

describe('deliveries across a clean stop and a restart', () => {
  it('delivers everything after a clean stop in the same state', async () => {
    const endpointId = await suite.createEndpoint('/faults');
    suite.answer(503);
    const retrying = await suite.queueTests(endpointId, 8);
    await eventually(() => retrying.every((id) => suite.attemptsOf(id) >= 2), Boolean);
    const pending = await suite.queueTests(endpointId, 4);

    await suite.stopCloud('SIGINT');
    suite.answer(200);
    await suite.startCloud();

    const all = [...retrying, ...pending];
    await eventually(() => all.filter((id) => !suite.acceptedIds.has(id)), (missing) => missing.length === 0);
  });
});
