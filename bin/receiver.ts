/**
 * `npm run receiver`: a webhook receiver to point the local cloud at. HTTPS on 127.0.0.1 with the
 * local CA's certificate (npm start trusts it), verifying every delivery's signature before it
 * looks at the body, and printing what arrived.
 *
 *   RECEIVER_PORT    port to listen on (default 4443)
 *   WEBHOOK_SECRET   the endpoint's secret; with it, signatures are checked (comma-separate two during a rotation)
 *   RECEIVER_STATUS  status to answer (default 200; try 500 to watch the retry ladder)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { verifySignature } from '../functions/core/webhooks/signature.ts';

const port = Number(process.env.RECEIVER_PORT ?? 4443);
const secrets = (process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const status = Number(process.env.RECEIVER_STATUS ?? 200);
const tls = new URL('../functions/local/tls/', import.meta.url);

const server = createServer({ key: readFileSync(new URL('receiver-key.pem', tls)), cert: readFileSync(new URL('receiver.pem', tls)) }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const header = req.headers['svc-signature'];
    // Verify the exact bytes received, before parsing them.
    const verdict =
      secrets.length === 0
        ? 'unchecked (set WEBHOOK_SECRET)'
        : (() => {
            const result = verifySignature(Array.isArray(header) ? header.join(',') : header, raw, secrets);
            return result.ok ? 'valid' : `INVALID (${result.reason})`;
          })();
    const event = JSON.parse(raw.toString('utf8')) as { id: string; type: string; late_ms?: number };
    console.log(
      `${new Date().toISOString()}  ${event.type}  id=${event.id}  signature ${verdict}${event.late_ms !== undefined ? `  late_ms=${event.late_ms}` : ''}  -> ${status}`,
    );
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'failing on purpose');
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`Webhook receiver on https://127.0.0.1:${port}/ (answers ${status})`);
  console.log('Start the local cloud with WEBHOOK_ALLOWED_TARGETS=127.0.0.1 so endpoints may point here.');
});
