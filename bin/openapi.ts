/** `npm run openapi [-- path]`: writes the OpenAPI document generated from the route table. */
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../functions/shared/openapi.ts';

const path = process.argv[2] ?? 'openapi.json';
writeFileSync(path, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${path}`);
