/**
 * A node's streamed book files of one directory cut at block boundaries, for `npm run ingest`.
 * The node rotates its hourly file by its own clock, not between blocks (a node behind the chain
 * writes blocks of 12:56 into hour 13's file), so a block being written at the turn of an hour
 * begins in one file and ends in the next. Numbered in the second file alone, its rest would
 * restart at seq 0 and take the places of its first events (rows are unique by block and seq).
 * So the files of a directory are read as one stream, in order: a block that runs on into the next
 * file is sent whole with the file where it began. The stream's first block may have begun in a
 * file that was not given, and its last may run on into one (or still be being written): both are
 * held back, named, and not sent. Given again with their neighbours, they are sent then.
 *
 * A line's block is its envelope's `block_number`, read from the text: the files are checked by
 * the parser first, so every line is an envelope, whose `block_number` the node writes before its
 * events (and no event of these formats has one).
 */

export interface StreamedFile {
  file: string;
  text: string;
}

export interface StreamedBatch {
  file: string;
  /** What is sent for the file: its blocks but the held-back ones, the last one with its rest from the next files. */
  text: string;
  /** Its blocks held back: the block, its lines in this file and why. */
  heldBack: string[];
  /** Its first lines when they finish a block that began in an earlier file, sent with that file. */
  sentWith?: string;
}

/** Where a block's lines lie: one part per file it spans. */
interface Run {
  block: number;
  parts: { file: number; first: number; last: number; lines: string[] }[];
}

const BLOCK_NUMBER = /"block_number"\s*:\s*(\d+)/;

/** The runs of lines of one block over the files, in order; or the line whose block came back after another began. */
function runsOf(files: readonly StreamedFile[]): Run[] | { error: string } {
  const runs: Run[] = [];
  const began = new Map<number, string>();
  for (const [f, { file, text }] of files.entries()) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line === '') continue;
      const match = BLOCK_NUMBER.exec(line);
      if (!match) return { error: `${file}: line ${i + 1}: no block_number (not a block of the node's streamed files)` };
      const block = Number(match[1]);
      let run = runs.at(-1);
      if (run?.block !== block) {
        const earlier = began.get(block);
        // The parser finds this within a file; across files it is a file given twice, or files of two runs of the node.
        if (earlier !== undefined)
          return {
            error: `${file}: line ${i + 1}: block_number ${block} again after block ${run?.block} began; it began at ${earlier}, so its events' places in the block are not known`,
          };
        began.set(block, `${file} line ${i + 1}`);
        runs.push((run = { block, parts: [] }));
      }
      const part = run.parts.at(-1);
      if (part?.file === f) {
        part.last = i + 1;
        part.lines.push(line);
      } else {
        run.parts.push({ file: f, first: i + 1, last: i + 1, lines: [line] });
      }
    }
  }
  return runs;
}

const linesOf = (part: Run['parts'][number]) => (part.first === part.last ? `line ${part.first}` : `lines ${part.first}–${part.last}`);

/**
 * The batch of each file of one directory's stream, the files in the node's order (by date, then
 * hour): each block sent once, whole, with the file where it begins; the stream's first and last
 * blocks held back.
 */
export function cutStreamedRun(files: readonly StreamedFile[]): StreamedBatch[] | { error: string } {
  const runs = runsOf(files);
  if ('error' in runs) return runs;
  const batches = files.map(({ file }) => ({ file, lines: [] as string[], heldBack: [] as string[], sentWith: undefined as string | undefined }));
  const firstName = files[0]?.file;
  const lastName = files.at(-1)?.file;
  for (const [r, run] of runs.entries()) {
    const owner = run.parts[0]!.file;
    const why = [
      ...(r === 0 ? [`it may have begun in the file before ${firstName}, which was not given`] : []),
      ...(r === runs.length - 1 ? [`it may go on in the file after ${lastName}, which was not given or is still being written`] : []),
    ];
    for (const [p, part] of run.parts.entries()) {
      if (why.length > 0) batches[part.file]!.heldBack.push(`block ${run.block}, ${linesOf(part)} (${why.join('; ')})`);
      else if (p > 0)
        batches[part.file]!.sentWith =
          `its ${linesOf(part)} ${part.first === part.last ? 'finishes' : 'finish'} block ${run.block}, sent with ${files[owner]!.file}`;
      if (why.length === 0) batches[owner]!.lines.push(...part.lines);
    }
  }
  return batches.map(({ file, lines, heldBack, sentWith }) => ({
    file,
    text: lines.length > 0 ? `${lines.join('\n')}\n` : '',
    heldBack,
    ...(sentWith !== undefined && { sentWith }),
  }));
}

/**
 * The order the node writes a directory's files in: `hourly/<date>/<hour>` by date, then hour as
 * a number (name order would put hour 10 before hour 9).
 */
export function streamOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
