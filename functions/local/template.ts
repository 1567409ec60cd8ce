/** Synthesizes the service stack in-process (bundling skipped) to read what the CDK app deploys. */
import { buildApp } from '../../lib/app.ts';

export async function synthesizeServiceTemplate(): Promise<{ Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }> }> {
  const { app, service } = buildApp({ bundling: false });
  const assembly = app.synth();
  return assembly.getStackArtifact(service.artifactId).template;
}
