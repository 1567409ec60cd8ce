/**
 * The order a run's files start in (the sequencer's rule, apart from vitest so it can be tested):
 * the first file that mostly waits, then `between` CPU-bound files, the other waiting files, the
 * rest of the CPU-bound files, and the local-cloud files last. Each group keeps the order it came in.
 */
export type FileKind = 'waits' | 'cpu' | 'local-cloud';

export function startOrder<T>(sorted: readonly T[], kindOf: (file: T) => FileKind, between: number): T[] {
  const of = (kind: FileKind) => sorted.filter((file) => kindOf(file) === kind);
  const [waiting, cpu] = [of('waits'), of('cpu')];
  return [...waiting.slice(0, 1), ...cpu.slice(0, between), ...waiting.slice(1), ...cpu.slice(between), ...of('local-cloud')];
}
