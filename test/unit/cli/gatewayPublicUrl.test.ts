// `switchboard gateway` with gateway.publicUrl as a real process (behind a reverse proxy): the
// OAuth resource it announces is the public endpoint when the audience is not a URL, requests
// naming the public Host are served, and a bad public URL stops it at load, naming the field.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli } from './cliProcess.js';
import { startOAuthGateway, type OAuthGatewayProcess } from './oauthGatewayProcess.js';

const T = { timeout: 60_000 };
const PUBLIC = 'https://gw.public.example';
let running: OAuthGatewayProcess;
let dir: string;
let url: string;

before(async () => {
  running = await startOAuthGateway('sb-gw-public-', (issuer) => ({ port: 0, publicUrl: PUBLIC, auth: { oauth: { issuer, audience: 'switchboard-gateway' } } }));
  ({ dir, url } = running);
});

after(async () => {
  await running?.close();
});

/** A GET of `path` on the listener with the `Host` a proxy passes on. */
function getWithHost(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = request({ hostname: target.hostname, port: target.port, path: target.pathname, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('switchboard gateway with gateway.publicUrl', () => {
  it('announces the public endpoint as its OAuth resource (the audience is not a URL) and serves the public Host', T, async () => {
    const prm = await getWithHost('/.well-known/oauth-protected-resource/mcp', 'gw.public.example');
    assert.equal(prm.status, 200, prm.body);
    assert.equal((JSON.parse(prm.body) as { resource: string }).resource, `${PUBLIC}/mcp`);
    // Another Host (DNS rebinding, a proxy for someone else) is still refused.
    assert.equal((await getWithHost('/.well-known/oauth-protected-resource/mcp', 'evil.example')).status, 403);
  });

  it('a bad public URL stops the gateway at load with the field in the error', T, async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ mcpServers: {}, switchboard: { gateway: { port: 0, publicUrl: 'http://gw.public.example' } } }));
    const run = await cli(['gateway', '--config', file]);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /\$\.switchboard\.gateway\.publicUrl/);
    assert.doesNotMatch(run.stdout, /Switchboard gateway:/);
  });
});
