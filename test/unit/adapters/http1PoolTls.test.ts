/**
 * `nodeFetch`'s POSTs to `https:` origins run on the lean HTTP/1.1 pool over TLS: the answer,
 * keep-alive reuse, and the certificate checks that must stay on (a self-signed certificate
 * nobody trusts, and an impostor's certificate where a trusted one is expected, are refused).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { nodeFetch } from '../../../src/adapters/nodeFetch.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/tls/${name}`, import.meta.url));

/** An HTTPS echo server presenting `cert`; counts its TLS connections. */
async function serve(cert: string): Promise<{ server: Server; url: string; connections: () => number; requests: () => number }> {
  let connections = 0;
  let requests = 0;
  const server = createServer({ cert: fixture(`${cert}.crt`), key: fixture(`${cert}.key`) }, (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.stringify({ method: req.method, host: req.headers.host, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    connections++;
    socket.on('error', () => undefined);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as { port: number }).port}/mcp`, connections: () => connections, requests: () => requests };
}

const failedWith = (code: string) => (e: unknown): boolean =>
  e instanceof TypeError && e.message === 'fetch failed' && (e.cause as { code?: string } | undefined)?.code === code;

describe('nodeFetch POST over TLS on the HTTP/1.1 pool', () => {
  let trusted: Awaited<ReturnType<typeof serve>>;
  let impostor: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    trusted = await serve('trusted');
    impostor = await serve('other');
  });
  after(() => {
    for (const s of [trusted, impostor]) {
      s.server.closeAllConnections();
      s.server.close();
    }
  });

  it('posts with the trusted CA: the answer, and sequential POSTs reuse one TLS connection', async () => {
    const f = nodeFetch({ https: { ca: fixture('trusted.crt') } });
    for (let i = 0; i < 3; i++) {
      const response = await f(trusted.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"i":${i}}` });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { method: 'POST', host: new URL(trusted.url).host, body: `{"i":${i}}` });
    }
    assert.equal(trusted.connections(), 1);
  });

  it('MITM: a self-signed certificate nobody said to trust is refused', async () => {
    await assert.rejects(nodeFetch()(trusted.url, { method: 'POST', body: '{}' }), failedWith('DEPTH_ZERO_SELF_SIGNED_CERT'));
  });

  it('MITM: an impostor certificate where the trusted one is expected is refused, and nothing is sent', async () => {
    const f = nodeFetch({ https: { ca: fixture('trusted.crt') } });
    await assert.rejects(f(impostor.url, { method: 'POST', body: '{"secret":1}' }), failedWith('DEPTH_ZERO_SELF_SIGNED_CERT'));
    assert.equal(impostor.requests(), 0);
  });
});
