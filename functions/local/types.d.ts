// dynalite and asl-validator ship no type declarations.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}
declare module 'asl-validator' {
  export default function aslValidator(definition: unknown): { isValid: boolean; errorsText: (separator?: string) => string };
}
