/**
 * Runs the state machines the CDK app synthesizes, with aws-local-stepfunctions. The definition is
 * read from the synthesized template (not rebuilt by hand), its intrinsic functions resolved, and
 * each Task state bound to the same handler the deployed task invokes (STATE_MACHINES maps task
 * state ids to functions). A Task state without a binding is an error at start-up; a definition
 * asl-validator refuses is one when the template is synthesized (`assertValidStateMachines`).
 */
import { StateMachine } from 'aws-local-stepfunctions';
import { STATE_MACHINES, type StateMachineName } from '../resources.ts';
import { invoke } from './invoke.ts';

// aws-local-stepfunctions calls Promise.withResolvers, which Node 20 lacks.
const promiseStatics = Promise as unknown as { withResolvers?: () => unknown };
promiseStatics.withResolvers ??= () => {
  let resolve!: (value: unknown) => void;
  let reject!: (reason?: unknown) => void;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }> };

/** Resolves the CloudFormation intrinsics CDK uses in state machine definitions. */
export function resolveIntrinsics(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveIntrinsics);
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  if ('Fn::Join' in node) {
    const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(resolveIntrinsics).join(separator);
  }
  if ('Ref' in node) {
    const ref = String(node.Ref);
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': 'us-east-1',
      'AWS::AccountId': '000000000000',
      'AWS::URLSuffix': 'amazonaws.com',
    };
    return pseudo[ref] ?? ref;
  }
  if ('Fn::GetAtt' in node) {
    const [logicalId, attribute] = node['Fn::GetAtt'] as [string, string];
    return attribute === 'Arn' ? `arn:aws:lambda:us-east-1:000000000000:function:${logicalId}` : `${logicalId}.${attribute}`;
  }
  if ('Fn::Sub' in node) {
    const text = String(Array.isArray(node['Fn::Sub']) ? node['Fn::Sub'][0] : node['Fn::Sub']);
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => String(resolveIntrinsics({ Ref: name })));
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveIntrinsics(v)]));
}

/** The state machine definitions in a synthesized template, keyed by catalogue name. */
export function definitionsFromTemplate(template: Template): Record<StateMachineName, Record<string, unknown>> {
  const found = {} as Record<StateMachineName, Record<string, unknown>>;
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::StepFunctions::StateMachine') continue;
    // CDK derives logical ids from construct ids: 'timer-sweep' appears as '...timersweep...'.
    const compact = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
    const name = (Object.keys(STATE_MACHINES) as StateMachineName[]).find((n) => compact(logicalId).includes(compact(n)));
    if (!name) continue;
    found[name] = JSON.parse(String(resolveIntrinsics(resource.Properties?.DefinitionString))) as Record<string, unknown>;
  }
  for (const name of Object.keys(STATE_MACHINES) as StateMachineName[]) {
    if (!found[name]) throw new Error(`State machine ${name} is missing from the synthesized template`);
  }
  return found;
}

/**
 * Throws unless asl-validator accepts every state machine definition of the template. Run once per
 * synthesis (templates are cached with their sources' digest): asl-validator compiles its JSON
 * schemas for every definition, about a quarter of a second each, which every start would repeat.
 */
export async function assertValidStateMachines(template: Template): Promise<void> {
  const { default: aslValidator } = await import('asl-validator');
  for (const [name, definition] of Object.entries(definitionsFromTemplate(template))) {
    const validation = aslValidator(definition);
    if (!validation.isValid) throw new Error(`State machine ${name} is not valid ASL: ${validation.errorsText()}`);
  }
}

function taskStateIds(definition: Record<string, unknown>): string[] {
  const ids: string[] = [];
  const walk = (states: Record<string, Record<string, unknown>>) => {
    for (const [id, state] of Object.entries(states)) {
      if (state.Type === 'Task') ids.push(id);
      for (const branch of (state.Branches as { States: Record<string, Record<string, unknown>> }[] | undefined) ?? []) walk(branch.States);
      const processor = (state.ItemProcessor ?? state.Iterator) as { States: Record<string, Record<string, unknown>> } | undefined;
      if (processor) walk(processor.States);
    }
  };
  walk(definition.States as Record<string, Record<string, unknown>>);
  return ids;
}

export interface LocalExecution {
  /** The execution's output; rejects when it fails, times out or is aborted. */
  result: Promise<unknown>;
  abort(): void;
}

export interface LocalStateMachines {
  /** Starts an execution and resolves with its output. */
  run(name: StateMachineName, input: unknown): Promise<unknown>;
  /** Starts an execution and returns at once. */
  start(name: StateMachineName, input: unknown): LocalExecution;
}

export function localStateMachines(template: Template): LocalStateMachines {
  const definitions = definitionsFromTemplate(template);
  const machines = {} as Record<StateMachineName, { machine: StateMachine; handlers: Record<string, (input: unknown) => Promise<unknown>> }>;
  for (const [name, definition] of Object.entries(definitions) as [StateMachineName, Record<string, unknown>][]) {
    const bindings = STATE_MACHINES[name].tasks;
    const unbound = taskStateIds(definition).filter((id) => !(id in bindings));
    if (unbound.length) throw new Error(`State machine ${name}: task states [${unbound.join(', ')}] have no function in STATE_MACHINES`);
    const handlers = Object.fromEntries(
      Object.entries(bindings).map(([stateId, fn]) => [
        stateId,
        // lambda:invoke tasks receive {FunctionName, Payload} and answer {Payload} (CDK's OutputPath is $.Payload).
        async (input: unknown) => ({ Payload: await invoke(fn, (input as { Payload?: unknown }).Payload ?? input), StatusCode: 200 }),
      ]),
    );
    // Checked when the template was synthesized, with the checks the constructor would make.
    machines[name] = { machine: new StateMachine(definition as never, { validationOptions: { noValidate: true } }), handlers };
  }
  const start = (name: StateMachineName, input: unknown): LocalExecution => {
    const { machine, handlers } = machines[name];
    const execution = machine.run(input as never, { overrides: { taskResourceLocalHandlers: handlers as never } });
    return { result: execution.result, abort: () => execution.abort() };
  };
  return { run: (name, input) => start(name, input).result, start };
}
