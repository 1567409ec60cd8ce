/**
 * Typed record helpers for turning the resource catalogue (functions/resources.ts) into constructs. The
 * catalogue is keyed records, so every stack loops with `mapRecord` and keeps the keys typed.
 */

/** Builds one value per catalogue entry, keeping the catalogue's key type. */
export function mapRecord<K extends string, V, R>(record: Readonly<Record<K, V>>, build: (key: K, value: V) => R): Record<K, R> {
  const entries = Object.entries(record) as [K, V][];
  return Object.fromEntries(entries.map(([key, value]) => [key, build(key, value)])) as Record<K, R>;
}

/** Typed `Object.entries` for the partial records a FunctionDef uses for its bindings. */
export function entriesOf<K extends string, V>(record: Partial<Record<K, V>> | undefined): [K, V][] {
  return Object.entries(record ?? {}) as [K, V][];
}

/** `timer-sweep` -> `TimerSweep`: CloudFormation output keys allow only alphanumerics. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
