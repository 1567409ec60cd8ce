import { describe, expect, it } from 'vitest';
import { applyFill, directionLabel } from '#local/demo/ledger.ts';

describe('applyFill', () => {
  it('opens and adds at the average entry, then realizes PnL on the closing part', () => {
    // Prepare
    const position = { units: 0, entry: 0 };
    // Act
    const open = applyFill(position, 100, 10, 0.01);
    const add = applyFill(position, 100, 12, 0.01);
    const close = applyFill(position, -50, 15, 0.01);
    // Assess
    expect([open.kind, add.kind, close.kind]).toEqual(['open', 'open', 'close']);
    expect(close.startUnits).toBe(200);
    expect(close.closedPnl).toBeCloseTo(0.5 * (15 - 11));
    expect(position).toEqual({ units: 150, entry: 11 });
    expect(directionLabel(close, -50, 'perp')).toBe('Close Long');
  });

  it('flips through zero, reopening at the fill price', () => {
    const position = { units: -30, entry: 20 };
    const flip = applyFill(position, 50, 18, 1);
    expect(flip).toEqual({ kind: 'flip', startUnits: -30, closedPnl: 60 });
    expect(position).toEqual({ units: 20, entry: 18 });
    expect(directionLabel(flip, 50, 'perp')).toBe('Short > Long');
  });

  it('labels spot fills as buys and sells', () => {
    const position = { units: 0, entry: 0 };
    expect(directionLabel(applyFill(position, 5, 1, 1), 5, 'spot')).toBe('Buy');
    expect(directionLabel(applyFill(position, -5, 1, 1), -5, 'spot')).toBe('Sell');
    expect(position).toEqual({ units: 0, entry: 0 });
  });
});
