/**
 * Shared fixtures for the infra tests: the app built without bundling (fast, no esbuild), its
 * templates, and small readers for logical ids, IAM statements and Fn::Join strings.
 */
import { Stack, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildApp } from '../../lib/app.ts';

export function synthesize(opts: { nag?: boolean } = {}) {
  const built = buildApp({ bundling: false, nag: opts.nag ?? false });
  return {
    ...built,
    statefulTemplate: Template.fromStack(built.stateful),
    serviceTemplate: Template.fromStack(built.service),
  };
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
