/** `npm run client:generate`: rewrites clients/typescript/src/generated.ts from the route table. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateClientSource } from './client-source.ts';

const target = fileURLToPath(new URL('../clients/typescript/src/generated.ts', import.meta.url));
writeFileSync(target, await generateClientSource());
console.log(`wrote ${target}`);
