/** The README's demo wallets are the ones `npm start` prints for the default seed, whatever the start time. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDemoMarket } from '#local/demo/market.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('README demo wallets', () => {
  it('lists every wallet of seed 42 with its label, and no other address', () => {
    const wallets = createDemoMarket({ seed: 42, startMs: Math.floor(Date.now() / 1000) * 1000, intensity: 0.3 }).wallets;
    const section = README.slice(README.indexOf('Demo wallets (seed 42)'), README.indexOf('## Feeding the archive'));
    const listed = [...section.replace(/\s+/g, ' ').matchAll(/`(0x[0-9a-f]{40})` \(([^)]+)\)/g)].map(([, address, label]) => `${address} ${label}`);
    expect(listed).toEqual(wallets.map((w) => `${w.address} ${w.label}`));
  });
});
