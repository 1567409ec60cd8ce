/**
 * Writes `test/fixtures/node_fills_by_block/sample.jsonl` (the node's fills by block) and
 * `sample.expected.json` (the normalized trades a parser of it should produce, one per line).
 * Run from the repository root: `node_modules/.bin/tsx functions/local/demo/write-fixture.ts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fixtureTrades } from './fixture.ts';
import { nodeFillBlocks, renderNodeFillsByBlock, takerTrades } from './node-fills.ts';

const DIRECTORY = 'test/fixtures/node_fills_by_block';

const trades = fixtureTrades();
const jsonl = renderNodeFillsByBlock(trades);
const expected = takerTrades(nodeFillBlocks(trades));
mkdirSync(DIRECTORY, { recursive: true });
writeFileSync(`${DIRECTORY}/sample.jsonl`, jsonl);
writeFileSync(`${DIRECTORY}/sample.expected.json`, `[\n${expected.map((trade) => JSON.stringify(trade)).join(',\n')}\n]\n`);
console.log(`${jsonl.split('\n').length - 1} blocks, ${expected.length} trades`);
