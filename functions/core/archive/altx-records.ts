/**
 * The altx venue's trades and market_stats entries as archive records: the venue's fields mapped,
 * percents made fractions and USD open interest made base units. altx-api.ts decides which lines
 * and markets they come from, and keeps one row per key.
 */
import type { FundingRecord, OpenInterestRecord, TradeRecord } from '#schemas/datasets.ts';
import { decimalOfNumber, epochMsOf, quotient, scaledProduct, shifted, type AltxMarketStats, type AltxTrade } from './altx-shapes.ts';
import { ALTX_QUOTE } from './altx-markets.ts';

type AltxFamily = keyof typeof ALTX_QUOTE;

/** A venue trade as the taker's: `is_maker_ask` means the maker sold, so the taker bought. */
export function tradeRecord(family: AltxFamily, symbol: string, t: AltxTrade): TradeRecord {
  const takerBought = t.is_maker_ask;
  const account = takerBought ? t.bid_account_id : t.ask_account_id;
  const order = takerBought ? t.bid_id : t.ask_id;
  return {
    dataset: 'trades',
    family,
    symbol,
    ts: epochMsOf(t.timestamp),
    trade_id: t.trade_id,
    side: takerBought ? 'B' : 'A',
    price: t.price,
    size: t.size,
    crossed: true,
    fee_token: ALTX_QUOTE[family],
    // The taker's fee rate is in millionths of the notional, and left out when zero.
    ...(t.usd_amount && { fee: scaledProduct(t.usd_amount, t.taker_fee ?? 0, 6) }),
    ...(t.taker_position_size_before && { start_position: t.taker_position_size_before }),
    ...(t.tx_hash && { tx_hash: t.tx_hash }),
    ...(order != null && { order_id: order }),
    ...(account != null && { account_index: String(account) }),
    is_liquidation: t.type === 'liquidation' || t.type === 'deleverage',
  };
}

/** A market_stats entry's running funding prediction and open interest, each when the entry carries it. */
export function statsRecords(
  family: AltxFamily,
  market: { symbol: string; szDecimals?: number },
  ts: number,
  s: AltxMarketStats,
): (FundingRecord | OpenInterestRecord)[] {
  const { symbol } = market;
  const records: (FundingRecord | OpenInterestRecord)[] = [];
  if (s.current_funding_rate) records.push({ dataset: 'funding', family, symbol, ts, funding_rate: shifted(s.current_funding_rate, 2) });
  // The venue's open interest is in USD: in base units it is that over the mark price, at the market's size decimals.
  const base = s.open_interest && s.mark_price && market.szDecimals !== undefined ? quotient(s.open_interest, s.mark_price, market.szDecimals) : undefined;
  if (base !== undefined) {
    const volume = s.daily_quote_token_volume == null ? undefined : decimalOfNumber(s.daily_quote_token_volume);
    records.push({
      dataset: 'open_interest',
      family,
      symbol,
      ts,
      open_interest: base,
      mark_price: s.mark_price || null,
      ...(s.index_price && { oracle_price: s.index_price }),
      ...(volume !== undefined && { day_ntl_volume: volume }),
    });
  }
  return records;
}
