// `switchboard gateway` with gateway.publicUrl as a real process (behind a reverse proxy): the
// OAuth resource it announces is the public endpoint when the audience is not a URL, requests
// naming the public Host are served, and a bad public URL stops it at load, naming the field.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DevAuthorizationServer } from '../../../src/auth/dev/devAuthorizationServer.js';
import { clock, startAuthorizationServer } from '../../e2e/remoteOAuthSupport.js';
import { cli, startCli, type RunningCli } from './cliProcess.js';

const T = { timeout: 60_000 };
const PUBLIC = 'https://gw.public.example';
let as: DevAuthorizationServer;
let closeAs: () => Promise<void>;
let dir: string;
let gateway: RunningCli;
let url: string;

before(async () => {
  const started = await startAuthorizationServer(clock().now);
  as = started.as;
  closeAs = started.close;
  dir = await mkdtemp(join(tmpdir(), 'sb-gw-public-'));
  const file = join(dir, 'switchboard.json');
  await writeFile(file, JSON.stringify({ mcpServers: {}, switchboard: { gateway: { port: 0, publicUrl: PUBLIC, auth: { oauth: { issuer: as.issuer, audience: 'switchboard-gateway' } } } } }));
  gateway = startCli(['gateway', '--config', file, '--log-level', 'warn']);
  const output = await gateway.waitFor(/Switchboard gateway: (\S+)/);
  url = /Switchboard gateway: (\S+)/.exec(output)?.[1] ?? '';
});

after(async () => {
  await gateway?.stop();
  await closeAs?.();
  await rm(dir, { recursive: true, force: true });
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
