/**
 * Ledger movements of the demo wallets, so `account.transfer` has something to fire on: about one
 * transfer per wallet every 20 minutes (deposits, withdrawals, sends to another wallet, transfers
 * between the perp and spot balances), mostly USDC, sometimes HYPE valued at its spot mid. Drawn from
 * a generator of their own, so the trades and books of a seed are unchanged by them.
 */
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { Rng, STREAM, hash32 } from './random.ts';
import { midOf, type SimState } from './state.ts';

const CHANCE_PER_MINUTE = 1 / 20;
const KINDS = ['deposit', 'withdraw', 'send', 'class_transfer', 'spot_transfer'] as const;

export function transferRecords(state: SimState, minuteMs: number): NormalizedRecord[] {
  const rng = new Rng(hash32(state.seed, STREAM.transfers, minuteMs / 1000));
  const out: NormalizedRecord[] = [];
  const hype = state.byKey.get('spot/HYPE-USDC');
  state.wallets.demo.forEach((wallet, index) => {
    if (!rng.chance(CHANCE_PER_MINUTE)) return;
    const trader = state.wallets.traders[index]!;
    const kind = rng.pick(KINDS);
    const inHype = hype !== undefined && (kind === 'send' || kind === 'spot_transfer') && rng.chance(0.3);
    const usdc = Math.round(trader.notional * rng.uniform(0.05, 2) * 100) / 100;
    const price = inHype ? midOf(hype) : 1;
    const amount = inHype ? (usdc / price).toFixed(4) : usdc.toFixed(2);
    const family = kind === 'spot_transfer' ? 'spot' : 'perpx';
    const ts = minuteMs + rng.int(60) * 1000;
    const tx = `0x${rng.hex(64)}`;
    const base = {
      dataset: 'transfers',
      family,
      symbol: inHype ? 'HYPE' : 'USDC',
      ts,
      kind,
      amount,
      usdc_value: (Number(amount) * price).toFixed(2),
      tx_hash: tx,
    } as const;
    if (kind === 'send' || kind === 'spot_transfer') {
      const other = state.wallets.demo[(index + 1 + rng.int(state.wallets.demo.length - 1)) % state.wallets.demo.length]!.address;
      out.push({ ...base, user_address: wallet.address, role: 'source', counterparty: other });
      out.push({ ...base, user_address: other, role: 'destination', counterparty: wallet.address });
    } else {
      out.push({ ...base, user_address: wallet.address, role: kind === 'withdraw' ? 'source' : 'destination' });
    }
  });
  return out;
}
