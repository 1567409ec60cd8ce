/**
 * Every address a host name resolves to (A and AAAA), for the SSRF checks. A name that does not
 * exist resolves to nothing (refused as a bad URL); any other failure is thrown, so it surfaces as
 * a retryable error instead of a 400.
 */
import { lookup } from 'node:dns/promises';

export async function resolveAll(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw error;
  }
}
