/**
 * The venue's public archive and metadata formats: `asset_ctxs` daily CSV (columns by header name,
 * empty cells, exponent numbers, the no-book mid), `l2_book` hourly book lines (the archive's
 * envelope, the bare message, its data), `spot_meta` (the pairs as spot instruments, `@N` named
 * through them), sniffing them by path and content, and refusals by line and field.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseBatch } from '#core/archive/parse.ts';
import { csvCells, epochMsOfIso, plainDecimal } from '#core/archive/asset-ctxs.ts';
import { formatOfContent, formatOfPath } from '#core/archive/sniff.ts';
import { spotNamesOf } from '#core/archive/spot-meta.ts';
import { parseDecimal } from '#core/book/decimal.ts';

const HEADER = 'time,coin,funding,open_interest,prev_day_px,day_ntl_vlm,premium,oracle_px,mark_px,mid_px,impact_bid_px,impact_ask_px';
const T = Date.parse('2025-08-01T00:00:00Z');

describe('asset_ctxs', () => {
  it('makes a funding and an open-interest sample of each row, with the values the cells hold', () => {
    // Prepare: a core perp, a hip3 market with empty optional cells, a market without a book (mid 0), exponent numbers
    const text = [
      HEADER,
      '2025-08-01T00:00:00Z,BTC,0.0000125,30000.5,115000.0,1234567890.12,0.00031,115010.0,115020.0,115021.5,115019.0,115022.0',
      '2025-08-01T00:00:00Z,xyz:TSLA,1.25e-05,100,300,5000,,301.5,302,,,',
      '2025-08-01T00:01:00.500Z,ZRO,-3.2E-6,7,2,0,null,2.1,2.2,0,0,0',
    ].join('\n');
    // Act
    const result = parseBatch('asset_ctxs', text);
    // Assess
    expect(result.ok && result.records).toEqual([
      { dataset: 'funding', family: 'perpx', symbol: 'BTC', ts: T, funding_rate: '0.0000125', premium: '0.00031' },
      {
        dataset: 'open_interest',
        family: 'perpx',
        symbol: 'BTC',
        ts: T,
        open_interest: '30000.5',
        mark_price: '115020.0',
        oracle_price: '115010.0',
        mid_price: '115021.5',
        day_ntl_volume: '1234567890.12',
      },
      { dataset: 'funding', family: 'hip3', symbol: 'xyz:TSLA', ts: T, funding_rate: '0.0000125' },
      {
        dataset: 'open_interest',
        family: 'hip3',
        symbol: 'xyz:TSLA',
        ts: T,
        open_interest: '100',
        mark_price: '302',
        oracle_price: '301.5',
        day_ntl_volume: '5000',
      },
      { dataset: 'funding', family: 'perpx', symbol: 'ZRO', ts: T + 60_500, funding_rate: '-0.0000032' },
      {
        dataset: 'open_interest',
        family: 'perpx',
        symbol: 'ZRO',
        ts: T + 60_500,
        open_interest: '7',
        mark_price: '2.2',
        oracle_price: '2.1',
        day_ntl_volume: '0',
      },
    ]);
  });

  it('finds columns by name in any order and spelling, ignores new ones, and reads quoted cells', () => {
    const text = ['"coin","time","mark_px","open_interest","new_column"', '"ETH","2025-08-01 00:00:00","3500.1","12.5","x"'].join('\n');
    const result = parseBatch('asset_ctxs', text);
    expect(result.ok && result.records).toEqual([
      { dataset: 'open_interest', family: 'perpx', symbol: 'ETH', ts: T, open_interest: '12.5', mark_price: '3500.1' },
    ]);
    const camel = parseBatch('asset_ctxs', 'time,coin,openInterest,markPx,dayNtlVlm\n2025-08-01T00:00:00Z,ETH,12.5,3500.1,99\n');
    expect(camel.ok && camel.records).toEqual([
      { dataset: 'open_interest', family: 'perpx', symbol: 'ETH', ts: T, open_interest: '12.5', mark_price: '3500.1', day_ntl_volume: '99' },
    ]);
    expect(formatOfContent('time,coin,openInterest\n')).toBe('asset_ctxs');
  });

  it('refuses naming the line and the column', () => {
    const text = [
      HEADER,
      '2025-08-01T00:00:00Z,BTC,0.1,1,1,1,1,1,1,1,1,1',
      '2025-08-01T00:00:00Z,ETH,abc,1,1,1,1,1,1,1,1,1',
      '2025-08-01,SOL,0.1,1,1,1,1,1,1,1,1,1',
      'x,y',
    ].join('\n');
    const result = parseBatch('asset_ctxs', text);
    expect(!result.ok && result.reason).toBe(
      'batch refused (asset_ctxs): line 3: funding must be a number (got "abc"); line 4: time must be an ISO time (got "2025-08-01"); line 5: 2 cells where the header has 12',
    );
    expect(parseBatch('asset_ctxs', 'time,coin,price\n')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/line 1: a header with time, coin and funding or open_interest/),
    });
  });

  it('rewrites any number cell in exponent form as the same decimal, digit for digit (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: -40, max: 40 }), (units, exponent) => {
        // Prepare: units x 10^exponent written in exponent form, and as plain digits
        const text = `${units}e${exponent}`;
        // Act
        const plain = plainDecimal(text)!;
        // Assess: the same value (units x 10^exponent), in canonical plain form
        const { units: got, scale } = parseDecimal(plain);
        const [l, r] = exponent >= 0 ? [units * 10n ** BigInt(exponent + scale), got] : [units * 10n ** BigInt(scale), got * 10n ** BigInt(-exponent)];
        expect(l).toBe(r);
        expect(plain).toMatch(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
      }),
    );
    expect([plainDecimal(''), plainDecimal('NaN'), plainDecimal('1.2.3'), plainDecimal('.5'), plainDecimal('-0.0'), plainDecimal('100.0')]).toEqual([
      undefined,
      undefined,
      null,
      '0.5',
      '-0.0',
      '100.0',
    ]);
  });

  it('reads the times and cells the archive writes', () => {
    expect(epochMsOfIso('2025-08-01T00:00:23.123456789')).toBe(T + 23_123);
    expect(epochMsOfIso('2025-08-01T00:00:00+00:00')).toBe(T);
    expect(epochMsOfIso('2025-08-01T00:00:00+02:00')).toBeUndefined();
    expect(csvCells('a,"b,c","d""e",')).toEqual(['a', 'b,c', 'd"e', '']);
  });
});

const levels = (bids: [string, string, number][], asks: [string, string, number][]) => [bids, asks].map((side) => side.map(([px, sz, n]) => ({ px, sz, n })));

describe('l2_book', () => {
  it("makes a native snapshot of each line at the venue's time, whatever envelope the line has", () => {
    // Prepare: the archive's line, the websocket message, the info answer, a line without the venue's time
    const data = {
      coin: 'SOL',
      time: T + 5_388,
      levels: levels(
        [
          ['150.1', '10.0', 2],
          ['150', '3', 1],
        ],
        [['150.2', '1', 1]],
      ),
    };
    const text = [
      { time: '2025-08-01T00:00:05.402514755', ver_num: 1, raw: { channel: 'l2Book', data } },
      { channel: 'l2Book', data: { ...data, time: T + 6_000 } },
      { ...data, time: T + 7_000 },
      { time: '2025-08-01T00:00:08.000000001', raw: { channel: 'l2Book', data: { coin: '@107', levels: levels([], []) } } },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    // Act
    const result = parseBatch('l2_book', text, { spotNames: new Map([[107, 'HYPE-USDC']]) });
    // Assess
    expect(result.ok && result.records).toEqual([
      {
        dataset: 'l2_snapshots',
        family: 'perpx',
        symbol: 'SOL',
        ts: T + 5_388,
        bids: [
          ['150.1', '10.0', 2],
          ['150', '3', 1],
        ],
        asks: [['150.2', '1', 1]],
      },
      {
        dataset: 'l2_snapshots',
        family: 'perpx',
        symbol: 'SOL',
        ts: T + 6_000,
        bids: [
          ['150.1', '10.0', 2],
          ['150', '3', 1],
        ],
        asks: [['150.2', '1', 1]],
      },
      {
        dataset: 'l2_snapshots',
        family: 'perpx',
        symbol: 'SOL',
        ts: T + 7_000,
        bids: [
          ['150.1', '10.0', 2],
          ['150', '3', 1],
        ],
        asks: [['150.2', '1', 1]],
      },
      { dataset: 'l2_snapshots', family: 'spot', symbol: 'HYPE-USDC', ts: T + 8_000, bids: [], asks: [] },
    ]);
  });

  it('keeps the native 20 levels of a deeper book', () => {
    const deep = Array.from({ length: 30 }, (_, i): [string, string, number] => [String(100 - i), '1', 1]);
    const result = parseBatch('l2_book', JSON.stringify({ coin: 'BTC', time: T, levels: levels(deep, []) }));
    expect(result.ok && (result.records[0] as { bids: unknown[] }).bids).toHaveLength(20);
  });

  it('refuses naming the line and the field', () => {
    const good = JSON.stringify({ raw: { channel: 'l2Book', data: { coin: 'BTC', time: T, levels: levels([], []) } } });
    const text = [
      good,
      JSON.stringify({ raw: { channel: 'trades', data: [] } }),
      JSON.stringify({ raw: { channel: 'l2Book', data: { coin: 'BTC', time: T, levels: [[{ px: '1', sz: 'x', n: 1 }], []] } } }),
      '{"raw": {"chan',
    ].join('\n');
    const result = parseBatch('l2_book', text);
    expect(!result.ok && result.reason).toBe(
      'batch refused (l2_book): line 2: raw.channel must be l2Book (got "trades"); line 3: raw.data.levels.0.0.sz must be a decimal string; line 4: not JSON',
    );
  });
});

const spotMeta = {
  universe: [
    { name: 'PURR/USDC', tokens: [1, 0], index: 0, isCanonical: true },
    { name: '@107', tokens: [150, 0], index: 107, isCanonical: false },
    { name: '@5', tokens: [7, 0], index: 5, isCanonical: false },
  ],
  tokens: [
    { name: 'USDC', szDecimals: 8, weiDecimals: 8, index: 0, tokenId: '0x6d', isCanonical: true, evmContract: null, fullName: null },
    { name: 'PURR', szDecimals: 0, weiDecimals: 5, index: 1, tokenId: '0xc1', isCanonical: true },
    { name: 'HYPE', szDecimals: 2, weiDecimals: 8, index: 150, tokenId: '0x0d', isCanonical: false, deployerTradingFeeShare: '0.0' },
    { name: 'kHYPE', szDecimals: 1, weiDecimals: 6, index: 7, tokenId: '0x0e', isCanonical: false },
  ],
};

describe('spot_meta', () => {
  it("lists every pair as a spot instrument with its tokens, named BASE-QUOTE where its tokens make the family's form", () => {
    // Act: as spotMeta answers, and as spotMetaAndAssetCtxs does
    const result = parseBatch('spot_meta', JSON.stringify(spotMeta), { at: T });
    const pairResult = parseBatch('spot_meta', JSON.stringify([spotMeta, [{ coin: 'PURR/USDC', markPx: '0.2' }]]), { at: T });
    // Assess
    expect(result.ok && result.records.map((r) => r.symbol)).toEqual(['PURR-USDC', 'HYPE-USDC', '@5']);
    expect(result.ok && result.records[1]).toEqual({
      dataset: 'instruments',
      family: 'spot',
      symbol: 'HYPE-USDC',
      ts: T,
      market_type: 'spot',
      sz_decimals: 2,
      quote: 'USDC',
      spot_pair: {
        pair_index: 107,
        name: '@107',
        is_canonical: false,
        base_token: 'HYPE',
        base_token_id: 150,
        base_wei_decimals: 8,
        quote_token_id: 0,
        quote_sz_decimals: 8,
        quote_wei_decimals: 8,
      },
    });
    expect(pairResult.ok && pairResult.records).toEqual(result.ok && result.records);
    expect(result.ok && spotNamesOf(result.records)).toEqual(
      new Map([
        [0, 'PURR-USDC'],
        [107, 'HYPE-USDC'],
        [5, '@5'],
      ]),
    );
  });

  it('refuses metadata missing its parts, naming them', () => {
    expect(parseBatch('spot_meta', JSON.stringify({ universe: [] }))).toMatchObject({ ok: false, reason: expect.stringMatching(/tokens: Invalid key/) });
    expect(parseBatch('spot_meta', JSON.stringify({ ...spotMeta, universe: [{ name: '@9', tokens: [99, 0], index: 9 }] }))).toMatchObject({
      ok: false,
      reason: 'batch refused (spot_meta): pair @9 (index 9) names token 99, which tokens do not list',
    });
  });
});

describe('sniffing the archive and metadata formats', () => {
  it("tells them by the archive's path names", () => {
    expect(formatOfPath('hyperliquid-archive/asset_ctxs/20250801.csv.lz4')).toBe('asset_ctxs');
    expect(formatOfPath('market_data/20250801/9/l2Book/BTC.lz4')).toBe('l2_book');
    expect(formatOfPath('meta/spotMeta.json')).toBe('spot_meta');
    expect(formatOfPath('landing/node_l4_snapshot/2026-05-20/at=1779271200000/x.jsonl.gz')).toBe('node_l4_snapshot');
  });

  it('tells them by their content', () => {
    expect(formatOfContent(`${HEADER}\n2025-08-01T00:00:00Z,BTC,0.1,1,1,1,1,1,1,1,1,1\n`)).toBe('asset_ctxs');
    expect(formatOfContent(JSON.stringify({ time: 't', ver_num: 1, raw: { channel: 'l2Book', data: {} } }))).toBe('l2_book');
    expect(formatOfContent(JSON.stringify({ coin: 'BTC', time: T, levels: [[], []] }))).toBe('l2_book');
    expect(formatOfContent(JSON.stringify(spotMeta, null, 2))).toBe('spot_meta');
    expect(formatOfContent(JSON.stringify([spotMeta, []]))).toBe('spot_meta');
  });

  it("says what it found when the file is no format of this venue (another venue's message, another CSV)", () => {
    expect(formatOfContent(JSON.stringify({ channel: 'trade:1', type: 'update/trade', trades: [] }))).toEqual({
      error: expect.stringMatching(/^line 1: no format of the venue's files/),
    });
    expect(formatOfContent('market_id,price,size\n1,2,3')).toEqual({ error: "line 1: a CSV header the venue's asset_ctxs do not have (market_id,price,size)" });
  });
});
