/**
 * The order files start in (three workers on two cores, vitest.config.ts). Files that mostly wait (a scaled retry
 * ladder, a lease, a restart) start first, spread between the longest CPU-bound files, so their
 * waits overlap CPU work (those files, and the background process making the run's fixtures)
 * instead of holding a worker at the end of the run, when nothing is left to overlap. Files that
 * start a local cloud on the run's fixtures (e2e and the typed client's tests) run last, longest
 * first as vitest orders them (by the last run's durations, else by size), so the run does not end
 * on a long file alone: a background process makes those fixtures (the stack's template, then the
 * demo archive: see global-setup.ts), asked for here as soon as the run has such files.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { requestFixtures } from './run-fixtures.ts';
import { startOrder, type FileKind } from './start-order.ts';

const STARTS_A_LOCAL_CLOUD = /\/test\/e2e\/|\/clients\/[^/]+\/test\//;
/**
 * Files whose time is mostly waits that a loaded machine does not shorten: the fault suite (a
 * ladder's 60 s rung at LOCAL_TIME_SCALE=60, a 30 s lease, `npm start` twice) and the delivery
 * ladder (28 attempts, each at least a second apart). They read the template only.
 */
const MOSTLY_WAITS = /\/test\/e2e\/(faults|webhook-delivery)\.test\.ts$/;
/** CPU-bound files started between the first waiting file and the next (so two waits rarely run at once). */
const CPU_FILES_BETWEEN_WAITS = 2;
/** A file that copies the demo archive (the others need the template only). */
const readsTheArchive = (spec: TestSpecification) => /\bstartDemoCloud\b/.test(readFileSync(spec.moduleId, 'utf8'));

export default class WaitsFirstLocalCloudsLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const kindOf = (spec: TestSpecification): FileKind =>
      MOSTLY_WAITS.test(spec.moduleId) ? 'waits' : STARTS_A_LOCAL_CLOUD.test(spec.moduleId) ? 'local-cloud' : 'cpu';
    // The global setup has run: its directory is in the provided context. The archive takes
    // minutes to seed, so it is asked for only by a run that has a file reading it (a file the
    // test here misses asks when it starts, and waits longer).
    const root = this.ctx.getRootProject().getProvidedContext().runFixturesDir;
    const localClouds = sorted.filter((spec) => kindOf(spec) === 'local-cloud');
    if (sorted.some((spec) => kindOf(spec) !== 'cpu')) requestFixtures(root, localClouds.some(readsTheArchive) ? 'archive' : 'template');
    return startOrder(sorted, kindOf, CPU_FILES_BETWEEN_WAITS);
  }
}
