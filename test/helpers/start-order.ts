/**
 * The order a run's files start in (the sequencer's rule, apart from vitest so it can be tested):
 * one file that mostly waits beside `cores` CPU-bound files, then the next waiting files in the
 * worker the first frees (one waits while the others keep the cores busy), the rest of the
 * CPU-bound files, and the local-cloud files last. Each group keeps the order it came in.
 */
export type FileKind = 'waits' | 'cpu' | 'local-cloud';

export function startOrder<T>(sorted: readonly T[], kindOf: (file: T) => FileKind, cores: number): T[] {
  const of = (kind: FileKind) => sorted.filter((file) => kindOf(file) === kind);
  const [waiting, cpu] = [of('waits'), of('cpu')];
  return [...waiting.slice(0, 1), ...cpu.slice(0, cores), ...waiting.slice(1), ...cpu.slice(cores), ...of('local-cloud')];
}
