/** Small builders of normalized records for archive tests. */
import type { NormalizedRecord } from '#schemas/datasets.ts';

export const T0 = Date.UTC(2026, 10, 18, 0, 0, 0); // a day well inside every family's coverage

export function trade(overrides: Partial<Extract<NormalizedRecord, { dataset: 'trades' }>> & { ts: number; trade_id: number }): NormalizedRecord {
  return {
    dataset: 'trades',
    family: 'perpx',
    symbol: 'BTC',
    side: 'B',
    price: '97000.5',
    size: '0.0123',
    crossed: true,
    fee: '0.01',
    fee_token: 'USDC',
    user_address: '0x00000000000000000000000000000000000000aa',
    ...overrides,
  } as NormalizedRecord;
}

export function jsonl(records: readonly NormalizedRecord[]): string {
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

/** `count` BTC trades one second apart from `start`, ids from `firstId`. */
export function trades(count: number, start: number, firstId: number, symbol = 'BTC'): NormalizedRecord[] {
  return Array.from({ length: count }, (_, i) => trade({ ts: start + i * 1000, trade_id: firstId + i, symbol, price: String(97000 + (i % 17)) }));
}
