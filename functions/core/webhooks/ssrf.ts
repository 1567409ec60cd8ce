/**
 * SSRF destination guard for webhook endpoints (SPEC, Authentication item 7: HTTPS only, publicly
 * resolvable hosts; private, loopback, link-local and cloud-metadata destinations refused at creation
 * and re-checked on every attempt).
 *
 * Everything here is pure: DNS is an injected port, so the same validator serves the create route,
 * the test button and the delivery worker (one shared validator, so no path skips the check).
 *
 * What this module does NOT do, and the sender must: pin the connection to the addresses returned by
 * `validateDestination` (or re-run `isForbiddenAddress` inside the HTTP agent's `lookup`), because a
 * second DNS answer can differ from the first (DNS rebinding); and never follow redirects.
 */
import { hostLiteral, isForbiddenAddress, stripBrackets } from './ip-ranges.ts';

/** Longest URL accepted; longer values are almost always abuse and bloat every stored row. */
export const MAX_URL_LENGTH = 2048;

export type ParsedDestination = { ok: true; url: URL; host: string; port: number } | { ok: false; reason: string };

export type DestinationCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/**
 * The DNS port. It must return every A and AAAA address of the name (for example
 * `dns.promises.lookup(host, { all: true, verbatim: true })` mapped to `.address`), because a single
 * forbidden address among several is enough to reach an internal service.
 * It may reject with code ENOTFOUND or ENODATA when the name does not exist; other rejections are
 * treated as infrastructure failures and propagate.
 */
export type ResolveHost = (host: string) => Promise<string[]>;

export interface DestinationOptions {
  /**
   * Hosts that skip the name and address checks (exact match, case-insensitive). Only the local
   * cloud sets this, from WEBHOOK_ALLOWED_TARGETS, so a developer can point a webhook at a receiver on
   * 127.0.0.1. The AWS configuration refuses WEBHOOK_ALLOWED_TARGETS, so in AWS this list is empty.
   */
  allowHosts?: readonly string[];
}

// ---------------------------------------------------------------------------------------------------
// URL shape
// ---------------------------------------------------------------------------------------------------

/**
 * Checks the URL's shape: https, a host, no credentials, a usable port, bounded length.
 * `host` is the parser's canonical hostname with IPv6 brackets removed; `port` defaults to 443.
 */
export function parseDestination(raw: string): ParsedDestination {
  if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `URL must be at most ${MAX_URL_LENGTH} characters` };
  // The WHATWG parser silently strips surrounding spaces and inner tabs/newlines; refusing them keeps
  // the stored string and the URL actually dialled identical.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u0020\u007f-\u009f\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/.test(raw)) {
    return { ok: false, reason: 'URL must not contain spaces or control characters' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'URL is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'URL must use https' };
  // `https://:@host/` parses to empty username and password, so also look for `@` in the raw
  // authority: any userinfo at all is refused rather than normalised away.
  const authority = /^[a-z][a-z0-9+.-]*:[/\\]*([^/\\?#]*)/i.exec(raw)?.[1] ?? '';
  if (url.username !== '' || url.password !== '' || authority.includes('@')) {
    return { ok: false, reason: 'URL must not contain credentials' };
  }
  if (url.hostname === '') return { ok: false, reason: 'URL must have a host' };
  // The parser already refuses ports above 65535 and drops an explicit :443; port 0 is left to us.
  const port = url.port === '' ? 443 : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, reason: 'URL port must be between 1 and 65535' };
  if (url.href.length > MAX_URL_LENGTH) return { ok: false, reason: `URL must be at most ${MAX_URL_LENGTH} characters` };
  return { ok: true, url, host: stripBrackets(url.hostname), port };
}

// ---------------------------------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------------------------------

/**
 * Suffixes that never name a public host: RFC 6761/6762/8375 special-use names, Google's metadata
 * zone, and the private TLDs RFC 6762 Appendix G lists as commonly used on internal networks.
 * Refusing them before DNS gives a clear message and keeps internal resolvers out of the loop.
 */
const INTERNAL_SUFFIXES = ['localhost', 'local', 'internal', 'localdomain', 'home.arpa', 'intranet', 'private', 'corp', 'home', 'lan'];

/**
 * Why a (non-literal) host name is obviously internal, or undefined. Call it after `hostLiteral`:
 * IPv6 literals have no dots and would be refused here as single-label names.
 */
export function checkHostName(host: string): string | undefined {
  // Trailing dots name the same host (`localhost.` is localhost) but would dodge a suffix check.
  const name = host.trim().toLowerCase().replace(/\.+$/, '');
  if (name === '') return 'URL must have a host';
  for (const suffix of INTERNAL_SUFFIXES) {
    if (name === suffix) return `URL host must be a public name, not ${suffix}`;
    if (name.endsWith(`.${suffix}`)) return `URL host must be a public name, not a .${suffix} name`;
  }
  // Single-label names are completed with the resolver's search domains, i.e. internal names.
  if (!name.includes('.')) return 'URL host must be a fully qualified public name';
  return undefined;
}

/** Whether `host` is on the allow list: exact, case-insensitive; IP literals compared canonically. */
export function allowListed(host: string, allow: readonly string[]): boolean {
  if (allow.length === 0) return false;
  const key = allowKey(host);
  return allow.some((entry) => allowKey(entry) === key);
}

function allowKey(host: string): string {
  const literal = hostLiteral(host);
  if (literal !== undefined) return literal;
  return host.trim().toLowerCase().replace(/\.$/, '');
}

// ---------------------------------------------------------------------------------------------------
// The whole check
// ---------------------------------------------------------------------------------------------------

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The destination check run at creation and before every attempt: shape, internal names, then the
 * literal address or every resolved address. A host with any forbidden address is refused (one public
 * plus one private address is how rebinding-style attacks hedge), as is a host that resolves to
 * nothing. On success `addresses` are the canonical addresses the sender should pin its connection to.
 *
 * Resolver failures other than "no such name" (timeouts, SERVFAIL) propagate as rejections: they are
 * not the caller's fault and should surface as retryable, not as a 400.
 */
export async function validateDestination(raw: string, resolve: ResolveHost, options: DestinationOptions = {}): Promise<DestinationCheck> {
  const parsed = parseDestination(raw);
  if (!parsed.ok) return parsed;
  const { url, host } = parsed;
  const allowed = allowListed(host, options.allowHosts ?? []);

  const literal = hostLiteral(host);
  if (literal !== undefined) {
    const reason = allowed ? undefined : isForbiddenAddress(literal);
    return reason ? { ok: false, reason: `URL host ${literal} is ${reason}` } : { ok: true, url, addresses: [literal] };
  }

  if (!allowed) {
    const reason = checkHostName(host);
    if (reason) return { ok: false, reason };
  }

  let answers: string[];
  try {
    answers = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && NOT_FOUND_CODES.has(code)) return { ok: false, reason: 'URL host does not resolve' };
    throw error;
  }
  const addresses = [...new Set(answers.map((a) => hostLiteral(a) ?? a))];
  if (addresses.length === 0) return { ok: false, reason: 'URL host does not resolve' };
  if (!allowed) {
    for (const address of addresses) {
      const reason = isForbiddenAddress(address);
      // The resolved address is deliberately left out of the message (see V4_RANGES).
      if (reason) return { ok: false, reason: `URL host resolves to ${reason}` };
    }
  }
  return { ok: true, url, addresses };
}

// ---------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------
