/**
 * The order files start in. Files that start a local cloud (e2e and the typed client's tests) wait
 * for the run's fixtures, which a background process makes (the stack's template, then the demo
 * archive: see global-setup.ts), asked for here as soon as the run has such files. So the other
 * files run first, keeping both
 * workers busy meanwhile, and the local-cloud files after them, longest first as vitest orders
 * them (by the last run's durations, else by size), so the run does not end on a long file alone.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { requestFixtures } from './run-fixtures.ts';

const STARTS_A_LOCAL_CLOUD = /\/test\/e2e\/|\/clients\/[^/]+\/test\//;

export default class LocalCloudFilesLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = (spec: TestSpecification) => STARTS_A_LOCAL_CLOUD.test(spec.moduleId);
    // The global setup has run: its directory is in the provided context.
    if (sorted.some(last)) requestFixtures(this.ctx.getRootProject().getProvidedContext().runFixturesDir);
    return [...sorted.filter((spec) => !last(spec)), ...sorted.filter(last)];
  }
}
