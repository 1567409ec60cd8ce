import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from '#core/webhooks/signature.ts';

// Fixed vectors (reference-real-service.md section 5.3).
const T = 1758240000;
const BODY =
  '{"id": "11111111-1111-4111-8111-111111111111", "data": {"message": "Test event from 0xArchive."}, "type": "webhook.test", "observed_at": "2026-09-19T00:00:00+00:00", "schema_version": 1}';
const NEW = `whsec_${'0'.repeat(64)}`;
const OLD = `whsec_${'1'.repeat(64)}`;
const V1_NEW = '027f40e95c9aa4e8097c22493f6f019ad25407ddf35b13103f95e5501d49ec0b';
const V1_OLD = 'f8e6ae6781adad70ed0f94773fa2745147b718136e83fc22cafa09ded928095c';

describe('signatureHeader', () => {
  it('matches the fixed vectors, the new secret first during a rotation', () => {
    expect(BODY).toHaveLength(186);
    expect(signatureHeader([NEW], T, BODY)).toBe(`t=${T},v1=${V1_NEW}`);
    expect(signatureHeader([NEW, OLD], T, BODY)).toBe(`t=${T},v1=${V1_NEW},v1=${V1_OLD}`);
  });
});

describe('verifySignature', () => {
  const at = { nowS: T };

  it('accepts either secret during the rotation window, in any order and case', () => {
    expect(verifySignature(`t=${T},v1=${V1_NEW},v1=${V1_OLD}`, BODY, [OLD], at)).toEqual({ ok: true, t: T });
    expect(verifySignature(`v1=${V1_OLD.toUpperCase()} , t=${T}`, BODY, [NEW, OLD], at)).toEqual({ ok: true, t: T });
  });

  it('refuses a changed body, a wrong secret, and a re-serialized body', () => {
    expect(verifySignature(`t=${T},v1=${V1_NEW}`, `${BODY} `, [NEW], at)).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifySignature(`t=${T},v1=${V1_NEW}`, BODY, [OLD], at)).toEqual({ ok: false, reason: 'no_matching_signature' });
    expect(verifySignature(`t=${T},v1=${V1_NEW}`, JSON.stringify(JSON.parse(BODY)), [NEW], at)).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('applies the 300 s tolerance inclusively in both directions', () => {
    const header = `t=${T},v1=${V1_NEW}`;
    expect(verifySignature(header, BODY, [NEW], { nowS: T + 300 }).ok).toBe(true);
    expect(verifySignature(header, BODY, [NEW], { nowS: T - 300 }).ok).toBe(true);
    expect(verifySignature(header, BODY, [NEW], { nowS: T + 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });

  it('tells a missing header from a malformed one', () => {
    expect(verifySignature(undefined, BODY, [NEW], at)).toEqual({ ok: false, reason: 'missing_signature_header' });
    for (const header of [`v1=${V1_NEW}`, `t=${T}`, `t=abc,v1=${V1_NEW}`, 'garbage']) {
      expect(verifySignature(header, BODY, [NEW], at), header).toEqual({ ok: false, reason: 'malformed_signature_header' });
    }
  });
});
