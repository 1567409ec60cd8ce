/**
 * Position accounting of one wallet in one market, as the venue reports it on each fill: the position
 * before the fill, the direction label and the PnL realized by the closing part. Sizes are signed
 * integer units (size x 10^szDecimals) so positions add up exactly.
 */
import type { MarketType } from './catalog.ts';

export interface Position {
  units: number;
  /** Average entry price of the open position; 0 when flat. */
  entry: number;
}

export interface FillOutcome {
  kind: 'open' | 'close' | 'flip';
  startUnits: number;
  closedPnl: number;
}

/** Applies a fill of `units` (positive buys, negative sells) at `price` to `position`, in place. */
export function applyFill(position: Position, units: number, price: number, unitSize: number): FillOutcome {
  const startUnits = position.units;
  const endUnits = startUnits + units;
  if (startUnits === 0 || Math.sign(startUnits) === Math.sign(units)) {
    position.entry = (Math.abs(startUnits) * position.entry + Math.abs(units) * price) / Math.abs(endUnits);
    position.units = endUnits;
    return { kind: 'open', startUnits, closedPnl: 0 };
  }
  const closedUnits = Math.min(Math.abs(units), Math.abs(startUnits));
  const closedPnl = closedUnits * unitSize * (price - position.entry) * Math.sign(startUnits);
  position.units = endUnits;
  // A flip opens the remainder at the fill price; a full close leaves no entry.
  if (endUnits === 0) position.entry = 0;
  else if (Math.sign(endUnits) !== Math.sign(startUnits)) position.entry = price;
  return { kind: Math.sign(endUnits) === -Math.sign(startUnits) ? 'flip' : 'close', startUnits, closedPnl };
}

/** The venue's `dir` label: Buy/Sell on spot, Open/Close Long/Short (or a flip) on perps and outcomes. */
export function directionLabel(outcome: FillOutcome, units: number, marketType: MarketType): string {
  if (marketType === 'spot') return units > 0 ? 'Buy' : 'Sell';
  if (outcome.kind === 'flip') return outcome.startUnits > 0 ? 'Long > Short' : 'Short > Long';
  if (outcome.kind === 'close') return outcome.startUnits > 0 ? 'Close Long' : 'Close Short';
  return units > 0 ? 'Open Long' : 'Open Short';
}
