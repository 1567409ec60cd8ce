/** Synthesizes the service stacks in-process (bundling skipped) to read what the CDK app deploys. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertValidStateMachines } from './state-machines.ts';

/** The parts of the service stacks' CloudFormation templates the local cloud reads: their resources, in one template. */
export interface ServiceTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }>;
}

export async function synthesizeServiceTemplate(): Promise<ServiceTemplate> {
  // Loaded to synthesize only: the CDK app's modules cost about 1.5 s of CPU to load, which a start
  // on a cached template (a restart, every test's local cloud) need not spend.
  const { buildApp } = await import('#lib/app.ts');
  // The template is only read here; `npm run synth` and the infra suites validate it.
  const { app, service } = buildApp({ bundling: false, cloudFormationValidation: false });
  const assembly = app.synth();
  const template: ServiceTemplate = { Resources: {} };
  for (const stack of service.stacks) {
    for (const [id, resource] of Object.entries((assembly.getStackArtifact(stack.artifactId).template as ServiceTemplate).Resources)) {
      if (id in template.Resources) throw new Error(`Logical id ${id} is in two service stacks`);
      template.Resources[id] = resource;
    }
  }
  await assertValidStateMachines(template);
  return template;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Everything a synthesis reads from the project: the CDK app, the function and resource catalogues, the schemas, the pinned packages. */
const SOURCE_DIRS = ['lib', 'functions', 'schemas'];
const SOURCE_FILES = ['cdk.json', 'package-lock.json'];

/** A digest of the synthesis's inputs: any change to them (however unrelated) means a new synthesis. */
function sourceDigest(): string {
  const hash = createHash('sha256');
  const files = SOURCE_DIRS.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((name) => join(ROOT, dir, name)))
    .filter((path) => /\.(ts|json)$/.test(path))
    .sort();
  for (const path of [...files, ...SOURCE_FILES.map((name) => join(ROOT, name))]) hash.update(relative(ROOT, path)).update('\0').update(readFileSync(path));
  return hash.digest('hex').slice(0, 20);
}

/**
 * The service template, synthesized at most once per version of the sources: a synthesis takes
 * seconds (the CDK app builds every construct), so the local cloud keeps the last one in `dir`
 * under the digest of what it was made from.
 */
export async function serviceTemplateCachedIn(dir: string): Promise<ServiceTemplate> {
  const path = join(dir, `service-${sourceDigest()}.json`);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as ServiceTemplate;
  const template = await synthesizeServiceTemplate();
  mkdirSync(dir, { recursive: true });
  for (const old of readdirSync(dir)) if (old.startsWith('service-')) rmSync(join(dir, old), { force: true });
  writeFileSync(`${path}.partial`, JSON.stringify(template));
  renameSync(`${path}.partial`, path);
  return template;
}
