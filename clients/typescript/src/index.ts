export { ApiError, API_VERSION, createClient, type Client, type ClientOptions } from './client.ts';
export { DEFAULT_TOLERANCE_S, SIGNATURE_HEADER, signatureHeader, verifySignature, type VerifyFailure } from './signature.ts';
export type { Meta, Page } from './page.ts';
export * from './generated.ts';
