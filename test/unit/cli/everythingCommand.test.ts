// `switchboard everything --http`: the port from $PORT, and --allowed-host / --allowed-origin
// widening the DNS-rebinding allow-lists (run as a real process).
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { startCli } from './cliProcess.js';

/** POSTs an initialize-less ping to `url` with these headers; resolves with the status. */
function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }));
  });
}

async function listening(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stop: () => Promise<void> }> {
  const running = startCli(['everything', '--log-level', 'info', ...args], env);
  const text = await running.waitFor(/"url":"(http:[^"]+)"/);
  return { url: /"url":"(http:[^"]+)"/.exec(text)?.[1] ?? '', stop: running.stop };
}

describe('switchboard everything --http', () => {
  it('listens on $PORT when --port is not given', async () => {
    const probe = await listening(['--port', '0']);
    const port = new URL(probe.url).port;
    await probe.stop();
    const server = await listening([], { PORT: port });
    try {
      assert.equal(new URL(server.url).port, port);
    } finally {
      await server.stop();
    }
  });

  it('--allowed-host admits that Host name; a DNS-rebinding Host is still refused (403)', async () => {
    const server = await listening(['--port', '0', '--allowed-host', 'mcp.internal.test']);
    try {
      const port = new URL(server.url).port;
      assert.notEqual(await post(server.url, { host: `mcp.internal.test:${port}` }), 403);
      assert.notEqual(await post(server.url, { host: `localhost:${port}` }), 403);
      assert.equal(await post(server.url, { host: `attacker.example:${port}` }), 403);
    } finally {
      await server.stop();
    }
  });

  it('--allowed-origin admits that browser origin; a foreign origin is refused (403)', async () => {
    const server = await listening(['--port', '0', '--allowed-origin', 'https://app.example.com']);
    try {
      assert.notEqual(await post(server.url, { origin: 'https://app.example.com' }), 403);
      assert.equal(await post(server.url, { origin: 'https://evil.example.com' }), 403);
    } finally {
      await server.stop();
    }
  });
});
