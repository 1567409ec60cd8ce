/**
 * Builds the CDK app. `bin/app.ts` synthesizes it for deployment; the local cloud builds it with
 * bundling off and reads the service stacks' templates (their state machine definitions) to run locally.
 */
import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { applyNagSuppressions } from './nag-suppressions.ts';
import { ServiceStacks } from './service-stacks.ts';
import { StatefulStack } from './stateful-stack.ts';
import { LakeStack } from './lake-stack.ts';

/**
 * cdk.json's context (feature flags) as the CLI would pass it. Tests and the local cloud build the
 * app without the CLI; without this they would synthesize different templates than `cdk synth`.
 */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

export interface BuildAppOptions {
  /** false skips esbuild entirely (tests, the local cloud): assets point at the source tree. */
  readonly bundling: boolean;
  /** Runs the cdk-nag AwsSolutions checks; findings become synth errors and warnings. */
  readonly nag?: boolean;
  /**
   * Runs CDK's built-in CloudFormation template validation (default true; an error fails the
   * synthesis, cdk.json's `validateAgainstDefaultRules`). It is most of a synthesis's time (a WASM
   * schema check of every resource), so a synthesis that only reads the template (the local
   * cloud, tests of wiring) turns it off; `cdk synth`, `cdk deploy` and the infra suites run it.
   */
  readonly cloudFormationValidation?: boolean;
  /**
   * Adds the metadata the CDK CLI asks of a synthesis (an AWS::CDK::Metadata resource and its
   * condition in every stack, asset metadata), so templates are the size `cdk deploy` uploads: the
   * infra suites' quota test reads them. Off for the local cloud, which reads resources only.
   */
  readonly cliMetadata?: boolean;
}

export function buildApp(opts: BuildAppOptions = { bundling: true }): { app: App; stateful: StatefulStack; service: ServiceStacks; lake: LakeStack } {
  const app = new App({
    builtinCloudFormationValidation: opts.cloudFormationValidation ?? true,
    context: {
      // Strong (Fn::ImportValue) references keep the stateful stack from dropping a resource the
      // service still uses, and nag-suppressions.ts names findings by those export names. cdk.json
      // may still override it.
      '@aws-cdk/core:defaultCrossStackReferences': 'strong',
      // The CLI turns this on; without the CLI the local cloud still finds each task's function
      // (and so its source file) through the resource's `aws:cdk:path` metadata.
      'aws:cdk:enable-path-metadata': true,
      ...(opts.cliMetadata && { 'aws:cdk:version-reporting': true, 'aws:cdk:enable-asset-metadata': true }),
      ...cdkJsonContext(),
    },
    // An empty bundling-stacks list skips esbuild. postCliContext, because the CDK CLI passes its
    // own list ('**') as context, which would override ours.
    ...(opts.bundling ? {} : { postCliContext: { 'aws:cdk:bundling-stacks': [] } }),
  });
  const stateful = new StatefulStack(app, 'MarketArchiveStateful', {
    description: 'Market archive data: S3 archive, DynamoDB tables, SQS queues',
  });
  const service = new ServiceStacks(app, { stateful });
  const lake = new LakeStack(app, 'MarketArchiveLake', {
    description: 'Market archive data lake: a Glue database with a table per dataset over the archive bucket',
    archive: stateful.buckets.archive,
  });
  // Acknowledged whether or not nag runs, so the templates are the same either way.
  applyNagSuppressions(stateful, service);
  if (opts.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stateful, service, lake };
}
