/**
 * Delivery signatures (SPEC Authentication item 6): header `svc-signature: t=<unix s>,v1=<hex>`
 * where v1 = hex(HMAC-SHA256(key = the whole secret string, msg = "<t>.<raw body bytes>")). For 24
 * hours after a rotation the header carries two v1 values, the new secret's first. `verifySignature`
 * is what a receiver runs: constant-time comparison, before parsing the body, within a tolerance.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'svc-signature';
export const DEFAULT_TOLERANCE_S = 300;

function digest(secret: string, t: number | string, body: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.`).update(body).digest('hex');
}

/** The header value for a body sent at `t` (unix seconds), signed with every secret given, newest first. */
export function signatureHeader(secrets: readonly string[], t: number, body: string | Uint8Array): string {
  return [`t=${t}`, ...secrets.map((secret) => `v1=${digest(secret, t, body)}`)].join(',');
}

export type VerifyFailure = 'missing_signature_header' | 'malformed_signature_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

export function verifySignature(
  header: string | undefined | null,
  body: string | Uint8Array,
  secrets: readonly string[],
  options: { nowS?: number; toleranceS?: number } = {},
): { ok: true; t: number } | { ok: false; reason: VerifyFailure } {
  if (!header) return { ok: false, reason: 'missing_signature_header' };
  let t: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key = '', ...rest] = part.split('=');
    const value = rest.join('=').trim();
    if (key.trim() === 't' && t === undefined) {
      if (!/^\d+$/.test(value)) return { ok: false, reason: 'malformed_signature_header' };
      t = value;
    } else if (key.trim() === 'v1' && value) signatures.push(value.toLowerCase());
  }
  if (t === undefined || signatures.length === 0) return { ok: false, reason: 'malformed_signature_header' };
  const tolerance = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  const now = options.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(t)) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  for (const secret of secrets) {
    const expected = Buffer.from(digest(secret, t, body), 'utf8');
    for (const signature of signatures) {
      const given = Buffer.from(signature, 'utf8');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, t: Number(t) };
    }
  }
  return { ok: false, reason: 'no_matching_signature' };
}
