/**
 * Shared fixtures for the infra tests: the app built without bundling (fast, no esbuild) and with
 * the cdk-nag checks (they run once, at the synthesis the templates are read from; the templates are
 * the same with or without them), its templates, and small readers for logical ids, IAM statements
 * and Fn::Join strings.
 */
import { NestedStack, Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildApp } from '#lib/app.ts';

function build(cloudFormationValidation: boolean) {
  const built = buildApp({ bundling: false, nag: true, cloudFormationValidation, cliMetadata: true });
  return {
    ...built,
    statefulTemplate: Template.fromStack(built.stateful),
    serviceTemplate: merged(built.service.stacks.map(withNestedStacks)),
  };
}

/** The file's syntheses, with and without CloudFormation validation (each made at most once). */
const built = new Map<boolean, ReturnType<typeof build>>();

/**
 * The app, synthesized once per test file and shared by its suites (they only read it). A finding
 * cdk-nag does not acknowledge makes the synthesis throw, naming the finding, as does a template
 * error CloudFormation validation finds (`cloudFormationValidation`, on by default: it is seconds
 * of a synthesis, so a file that checks wiring only turns it off; one file checking the real app
 * is enough).
 */
export function synthesize({ cloudFormationValidation = true }: { cloudFormationValidation?: boolean } = {}) {
  let app = built.get(cloudFormationValidation);
  if (!app) built.set(cloudFormationValidation, (app = build(cloudFormationValidation)));
  return app;
}

type Json = unknown;
type TemplateJson = { Resources: Record<string, Json>; Outputs?: Record<string, Json> };

/**
 * The service stacks' templates as one: their resources and outputs (logical ids are unique across
 * them, but for the CLI's metadata resource each stack has).
 */
function merged(templates: Template[]): Template {
  const all: TemplateJson = { Resources: {}, Outputs: {} };
  for (const template of templates) {
    const json = template.toJSON() as TemplateJson;
    for (const part of ['Resources', 'Outputs'] as const) {
      for (const [id, value] of Object.entries(json[part] ?? {})) {
        if (id in all[part]! && id !== 'CDKMetadata') throw new Error(`${id} is in two service stacks`);
        all[part]![id] = value;
      }
    }
  }
  return Template.fromJSON(all);
}

/**
 * A stack's template with its nested stacks' resources merged in, each reference to a nested
 * parameter replaced by what the parent passes for it, so a method in a nested stack reads as if
 * it were declared beside the resource it belongs to.
 */
function withNestedStacks(stack: Stack): Template {
  const parent = Template.fromStack(stack).toJSON() as { Resources: Record<string, { Properties?: { Parameters?: Record<string, Json> } }> };
  const resources = { ...parent.Resources };
  for (const nested of stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))) {
    const passed = parent.Resources[logicalId(nested.nestedStackResource!)]?.Properties?.Parameters ?? {};
    const substitute = (value: Json): Json => {
      if (Array.isArray(value)) return value.map(substitute);
      if (value === null || typeof value !== 'object') return value;
      const ref = (value as { Ref?: unknown }).Ref;
      if (typeof ref === 'string' && ref in passed) return passed[ref];
      return Object.fromEntries(Object.entries(value).map(([k, val]) => [k, substitute(val)]));
    };
    const template = Template.fromStack(nested).toJSON() as { Resources: Record<string, Json> };
    for (const [id, resource] of Object.entries(template.Resources)) resources[id] = substitute(resource) as (typeof resources)[string];
  }
  return Template.fromJSON({ ...parent, Resources: resources });
}

/** The logical id of a construct's CloudFormation resource (its default child for L2s). */
export function logicalId(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(element).getLogicalId(element);
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every statement of the inline policies attached to a role, as synthesized. */
export function roleStatements(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleLogicalId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

export function actionsOf(statements: readonly Statement[]): string[] {
  return statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

/**
 * Turns a synthesized `Fn::Join` into its string the way the local cloud does: pseudo parameters
 * get fixed values and a Lambda `Fn::GetAtt` becomes an ARN ending in the function's logical id.
 */
export function resolveJoin(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = value as Record<string, unknown>;
  if (node['Fn::Join']) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(resolveJoin).join(separator);
  }
  if (node.Ref === 'AWS::Partition') return 'aws';
  if (node.Ref === 'AWS::Region') return 'us-east-1';
  if (node.Ref === 'AWS::AccountId') return '123456789012';
  if (typeof node.Ref === 'string') return node.Ref;
  if (node['Fn::GetAtt']) {
    const [id] = node['Fn::GetAtt'] as [string, string];
    return `arn:aws:lambda:us-east-1:123456789012:function:${id}`;
  }
  throw new Error(`Cannot resolve ${JSON.stringify(value)}`);
}
