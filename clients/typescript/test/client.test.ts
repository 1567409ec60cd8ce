/** The generated client against the local cloud: typed pages, iteration, errors, webhook calls, signatures. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoCloud } from '../../../test/helpers/local-cloud.ts';
import { ApiError, createClient, signatureHeader, verifySignature, type Client } from '../src/index.ts';

const KEY = 'client-test-key';
let cloud: Awaited<ReturnType<typeof startDemoCloud>>;
let client: Client;
const end = Date.now() - 5_000;
const window = { start: end - 2 * 3_600_000, end };

beforeAll(async () => {
  cloud = await startDemoCloud({ key: KEY });
  client = createClient({ baseUrl: cloud.url, apiKey: KEY });
});
afterAll(async () => {
  await cloud?.stop();
});

describe('the typed client', () => {
  it('reads a page of trades with typed rows and the paging members', async () => {
    // Act
    const page = await client.getPerpxTrades({ symbol: 'BTC', ...window, limit: 3 });
    // Assess
    expect(page.data).toHaveLength(3);
    expect(typeof page.data[0]!.price).toBe('string');
    expect(page.meta).toMatchObject({ count: 3, has_more: true, next_cursor: expect.any(String) });
  });

  it('iterates every row of a window, following has_more, the same at every page size', async () => {
    // Prepare
    const collect = async (limit: number) => {
      const keys: string[] = [];
      for await (const trade of client.iterate('getPerpxTrades', { symbol: 'ETH', ...window, limit })) keys.push(`${trade.timestamp}/${trade.trade_id}`);
      return keys;
    };
    // Act
    const [small, large] = [await collect(37), await collect(1000)];
    const last = await client.getPerpxTrades({ symbol: 'ETH', start: window.end - 1, end: window.end, limit: 1000 });
    // Assess
    expect(small.length).toBeGreaterThan(37);
    expect(small).toEqual(large);
    expect(new Set(small).size).toBe(small.length);
    expect(last.meta).toMatchObject({ has_more: false });
    expect(last.meta).not.toHaveProperty('next_cursor');
  });

  it('encodes hip4 and hip3 symbols the way the service reads them', async () => {
    const hip4 = await client.getHip4Trades({ symbol: '#10', ...window, limit: 2 });
    const hip3 = await client.getHip3Candles({ symbol: 'xyz:TSLA', ...window, interval: '5m', limit: 2 });
    expect(hip4.data.length).toBeGreaterThan(0);
    expect(hip3.data.length).toBeGreaterThan(0);
  });

  it('reads instruments and candles', async () => {
    const instruments = await client.getAltxInstruments();
    const candles = await client.getPerpxCandles({ symbol: 'BTC', ...window, interval: '1h' });
    expect(instruments.data.map((i) => i.symbol)).toContain('ETH');
    expect(candles.data.every((c) => typeof c.close === 'number')).toBe(true);
  });

  it("throws an ApiError with the service's code, parameter and valid values", async () => {
    // Act
    const error = await client.getPerpxCandles({ symbol: 'BTC', interval: '2m' as never }).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_interval', param: 'interval', validValues: expect.arrayContaining(['1m', '1h']) });
    expect((error as ApiError).requestId).toEqual(expect.any(String));
  });

  it('manages webhooks: endpoint, subscription, list, delete', async () => {
    // Act
    const endpoint = await client.createWebhookEndpoint({ body: { url: 'https://93.184.216.34/hooks/client', description: 'client test' } });
    const rule = await client.createWebhookSubscription({
      body: { endpoint_id: endpoint.data.id, event_type: 'market.liquidation', filters: { venue: 'perpx' } },
    });
    const listed = await client.listWebhookSubscriptions();
    await client.deleteWebhookSubscription({ id: rule.data.id });
    const deleted = await client.deleteWebhookEndpoint({ id: endpoint.data.id });
    // Assess
    expect(endpoint.data.secret).toMatch(/^whsec_/);
    expect(listed.data.map((s) => s.id)).toContain(rule.data.id);
    expect(deleted.data).toEqual({ deleted: true, id: endpoint.data.id });
    expect((await client.listWebhookEndpoints()).data).toEqual([]);
  });

  it('refuses a path value that URL resolution would turn into another route', async () => {
    await expect(client.getWebhookEndpoint({ id: '..' })).rejects.toThrow(TypeError);
    await expect(client.getPerpxTrades({ symbol: '.' })).rejects.toThrow(/not a value/);
  });

  it('verifies a delivery signature on the receiver side and refuses a tampered body', () => {
    const body = '{"id":"evt_1","type":"webhook.test"}';
    const t = Math.floor(Date.now() / 1000);
    const header = signatureHeader(['whsec_new', 'whsec_old'], t, body);
    expect(verifySignature(header, body, ['whsec_old'])).toEqual({ ok: true, t });
    expect(verifySignature(header, body.replace('test', 'fill'), ['whsec_old'])).toEqual({ ok: false, reason: 'no_matching_signature' });
  });
});
