// The CLI's OAuth pieces: the 0600 file token store and the loopback redirect authorizer.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TokenSet } from '../../../src/auth/client/tokenStore.js';
import { FileTokenStore } from '../../../src/cli/oauthFileStore.js';
import { loopbackAuthorizer, loopbackRedirectUri } from '../../../src/cli/oauthLoopback.js';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-oauth-'));
  dirs.push(dir);
  return join(dir, 'nested', 'oauth');
}

const tokens: TokenSet = { accessToken: 'at', tokenType: 'Bearer', requestedScopes: ['a'], issuer: 'https://as.example', resource: 'https://rs.example/mcp' };

describe('FileTokenStore', () => {
  it('persists clients and tokens across instances in a 0600 file inside a 0700 directory', async () => {
    const dir = await tempDir();
    const store = new FileTokenStore(dir);
    assert.equal(await store.getTokens('https://rs.example/mcp'), undefined);
    await store.saveClient({ issuer: 'https://as.example', clientId: 'c1', tokenEndpointAuthMethod: 'none', source: 'dcr' });
    await Promise.all([store.saveTokens('https://rs.example/mcp', tokens), store.saveTokens('https://other.example/mcp', { ...tokens, accessToken: 'o' })]);
    const again = new FileTokenStore(dir);
    assert.deepEqual(await again.getTokens('https://rs.example/mcp'), tokens);
    assert.equal((await again.getTokens('https://other.example/mcp'))?.accessToken, 'o');
    assert.equal((await again.getClient('https://as.example'))?.clientId, 'c1');
    assert.equal(await again.getClient('toString'), undefined);
    assert.equal((await stat(store.path)).mode & 0o777, 0o600);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    await again.deleteTokens('https://rs.example/mcp');
    await again.deleteClient('https://as.example');
    const data = JSON.parse(await readFile(store.path, 'utf8')) as { clients: object; tokens: object };
    assert.deepEqual(Object.keys(data.clients), []);
    assert.deepEqual(Object.keys(data.tokens), ['https://other.example/mcp']);
  });

  it('keeps a registration with a CryptoKey in memory only', async () => {
    const dir = await tempDir();
    const store = new FileTokenStore(dir);
    const { privateKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    await store.saveClient({ issuer: 'https://as.example', clientId: 'k', tokenEndpointAuthMethod: 'private_key_jwt', privateKey, source: 'pre-registered' });
    assert.equal((await store.getClient('https://as.example'))?.clientId, 'k');
    assert.equal(await new FileTokenStore(dir).getClient('https://as.example'), undefined);
  });
});

describe('loopbackAuthorizer', () => {
  it('prints the URL, waits for the redirect on 127.0.0.1 and resolves with its parameters', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const prompted: string[] = [];
    const authorize = loopbackAuthorizer({ port, prompt: (url) => prompted.push(url.href), timeoutMs: 10_000 });
    const redirectUri = loopbackRedirectUri(port);
    assert.equal(redirectUri, `http://127.0.0.1:${port}/callback`);
    const pending = authorize(new URL('https://as.example/authorize?x=1'), { redirectUri });
    while (prompted.length === 0) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(prompted, ['https://as.example/authorize?x=1']);
    const other = await fetch(`http://127.0.0.1:${port}/elsewhere`);
    assert.equal(other.status, 404);
    const page = await fetch(`${redirectUri}?code=c1&state=s1&iss=${encodeURIComponent('https://as.example')}`);
    assert.equal(page.status, 200);
    assert.deepEqual(await pending, { code: 'c1', state: 's1', iss: 'https://as.example' });
    await assert.rejects(fetch(redirectUri), 'the listener is closed afterwards');
  });

  it('rejects on abort, on a repeated parameter, and refuses non-http URLs', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const controller = new AbortController();
    const authorize = loopbackAuthorizer({ port, prompt: () => controller.abort(new Error('stop')) });
    await assert.rejects(authorize(new URL('https://as.example/a'), { redirectUri: loopbackRedirectUri(port), signal: controller.signal }), /stop/);
    await assert.rejects(loopbackAuthorizer({ port })(new URL('file:///etc/passwd'), { redirectUri: loopbackRedirectUri(port) }), /refusing/);
    let ready = false;
    const twice = loopbackAuthorizer({ port, prompt: () => (ready = true) })(new URL('https://as.example/a'), { redirectUri: loopbackRedirectUri(port) });
    const refused = assert.rejects(twice, /repeats code/);
    while (!ready) await new Promise((r) => setTimeout(r, 10));
    const res = await fetch(`${loopbackRedirectUri(port)}?code=a&code=b`);
    assert.equal(res.status, 400);
    await refused;
  });
});
