/** Synthesizes the service stack in-process (bundling skipped) to read what the CDK app deploys. */
import { buildApp } from '../../lib/app.ts';

/** The parts of the service stack's CloudFormation template the local cloud reads. */
export interface ServiceTemplate { Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }> }

export async function synthesizeServiceTemplate(): Promise<ServiceTemplate> {
  const { app, service } = buildApp({ bundling: false });
  const assembly = app.synth();
  return assembly.getStackArtifact(service.artifactId).template;
}
