/**
 * `switchboard inspect <server>` end to end: the command starts a gateway with the full chain in
 * front of one server given on the command line, prints the console's Inspector URL and where
 * its admin token is, and every call made from the Inspector goes through the chain and is
 * audited as `console:admin`. The MCP side of that gateway needs its own bearer token; the
 * admin token is the console's only.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { signIn, type ConsoleClient } from './fixtures/consoleClient.js';
import { MAIN } from './fixtures/gatewayHarness.js';

/** Waits for the two lines `inspect --print` writes, or fails with what the command said. */
function printed(child: ChildProcess): Promise<{ url: string; tokenFile: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /^Inspector: (\S+)$/m.exec(out);
      const token = /^Admin token: (.+)$/m.exec(out);
      if (url !== null && token !== null) resolve({ url: url[1] as string, tokenFile: (token[1] as string).trim() });
    });
    child.once('exit', (code) => reject(new Error(`inspect exited with ${String(code)} before printing its URL: ${out}${err}`)));
  });
}

describe('e2e: switchboard inspect', () => {
  let child: ChildProcess;
  let url: URL;
  let tokenFile: string;
  let session: ConsoleClient;

  before(async () => {
    child = spawn(process.execPath, [MAIN, 'inspect', '--print', '--name', 'probe', '--', process.execPath, MAIN, 'everything', '--stdio', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = await printed(child);
    url = new URL(out.url);
    tokenFile = out.tokenFile;
    session = await signIn(url.origin, (await readFile(tokenFile, 'utf8')).trim());
  });

  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('prints the Inspector URL of the server it was given, on loopback, with the admin token file beside it', () => {
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal(url.pathname, '/console/');
    assert.equal(url.hash, '#/inspector/probe');
    assert.match(tokenFile, /admin-token$/);
  });

  it('the Inspector lists and calls the server through the gateway, audited as console:admin', async () => {
    const listed = await session.json<{ tools: { name: string }[] }>('/console/api/inspector/probe');
    assert.ok(listed.tools.some((t) => t.name === 'echo'));
    const called = await session.json<{ result: { content: { text?: string }[] } }>('/console/api/inspector/call', { method: 'POST', body: { tool: 'echo', arguments: { message: 'through the chain' } } });
    assert.match(called.result.content.map((c) => c.text ?? '').join(''), /through the chain/);
    const audit = await session.json<{ records: { principal: string; name: string; method: string }[] }>('/console/api/audit?principal=console:admin&limit=20');
    assert.ok(audit.records.some((r) => r.method === 'tools/call' && r.name === 'echo'));
  });

  it('the admin token does not open the MCP endpoint (the agent side has its own credential)', async () => {
    const token = (await readFile(tokenFile, 'utf8')).trim();
    const r = await fetch(new URL('/mcp', url.origin), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    assert.equal(r.status, 401);
  });

  it('its temporary state folder is removed when the command ends', async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    assert.equal(existsSync(tokenFile), false);
  });
});
