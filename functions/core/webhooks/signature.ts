/**
 * Delivery signatures: the one implementation lives in the published client
 * (clients/typescript/src/signature.ts), so what the engine signs and what receivers verify cannot
 * drift apart.
 */
export { DEFAULT_TOLERANCE_S, SIGNATURE_HEADER, signatureHeader, verifySignature, type VerifyFailure } from '#clients/typescript/src/signature.ts';
