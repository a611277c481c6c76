// Token files per server identity: mode 0600 in a 0700 folder, keyed by URL origin + path,
// each store bound to its own identity (a provider cannot read or write another server's file).
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TokenSet } from '../../../src/auth/client/tokenStore.js';
import { OAuthTokenFiles } from '../../../src/store/oauthTokenFiles.js';
import { McpError } from '../../../src/util/errors.js';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function files(): Promise<OAuthTokenFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-tokens-'));
  dirs.push(dir);
  return new OAuthTokenFiles(join(dir, '.switchboard'));
}
const tokens = (accessToken: string): TokenSet => ({ accessToken, tokenType: 'Bearer', requestedScopes: ['mcp:read'], issuer: 'https://as.example.com', resource: 'https://mcp.example.com/mcp', refreshToken: `r-${accessToken}` });
const A = 'https://mcp.example.com/mcp';

describe('store/oauthTokenFiles', () => {
  it('stores a server\'s tokens in its own file, mode 0600, folder 0700', async () => {
    const store = await files();
    await store.forServer(A).saveTokens(A, tokens('t1'));
    assert.equal((await stat(store.pathFor(A))).mode & 0o777, 0o600);
    assert.equal((await stat(store.dir)).mode & 0o777, 0o700);
    assert.equal((await store.forServer(A).getTokens(A))?.accessToken, 't1');
    assert.equal(await store.hasTokens(A), true);
  });

  it('keys by identity: the same origin and path share tokens (query ignored, host case and default port normalized)', async () => {
    const store = await files();
    await store.forServer(A).saveTokens(A, tokens('t1'));
    for (const same of ['https://MCP.example.com:443/mcp', 'https://mcp.example.com/mcp?x=1', 'https://mcp.example.com/mcp#f']) {
      assert.equal((await store.forServer(same).getTokens(same))?.accessToken, 't1', same);
      assert.equal(store.pathFor(same), store.pathFor(A));
    }
  });

  it('token confusion: another path, port, host or scheme gets none of the tokens', async () => {
    const store = await files();
    await store.forServer(A).saveTokens(A, tokens('t1'));
    for (const other of ['https://mcp.example.com/mcp2', 'https://mcp.example.com:8443/mcp', 'https://evil.example.com/mcp', 'http://mcp.example.com/mcp', 'https://mcp.example.com/mcp/']) {
      assert.equal(await store.forServer(other).getTokens(other), undefined, other);
      assert.notEqual(store.pathFor(other), store.pathFor(A));
    }
  });

  it('cross-server access: a store bound to one server answers nothing for another URL and refuses to save there', async () => {
    const store = await files();
    const bound = store.forServer(A);
    await bound.saveTokens(A, tokens('t1'));
    assert.equal(await bound.getTokens('https://evil.example.com/mcp'), undefined);
    await assert.rejects(bound.saveTokens('https://evil.example.com/mcp', tokens('x')), (error) => error instanceof McpError && error.code === 'ERR_MCP_INVALID_ARGUMENT');
    await bound.deleteTokens('https://evil.example.com/mcp');
    assert.equal((await bound.getTokens(A))?.accessToken, 't1', 'deleting for another URL left this server alone');
  });

  it('file swapping: a token file renamed onto another identity\'s name is refused as corrupt', async () => {
    const store = await files();
    const B = 'https://other.example.com/mcp';
    await store.forServer(A).saveTokens(A, tokens('t1'));
    await rename(store.pathFor(A), store.pathFor(B));
    await assert.rejects(store.forServer(B).getTokens(B), (error) => error instanceof McpError && error.code === 'ERR_MCP_STORE_CORRUPT' && /belongs to/.test(error.message));
  });

  it('a hand-damaged file is a typed error, never a crash', async () => {
    const store = await files();
    await store.forServer(A).saveTokens(A, tokens('t1'));
    await writeFile(store.pathFor(A), '{"version":1,"identity":"https://mcp.example.com/mcp","clients":{},"tokens":{"accessToken":5}}');
    await assert.rejects(store.forServer(A).getTokens(A), (error) => error instanceof McpError && error.code === 'ERR_MCP_STORE_CORRUPT');
  });

  it('offers a configured clientId as a pre-registered public client until a registration is stored', async () => {
    const store = await files();
    const bound = store.forServer(A, { clientId: 'my-client' });
    assert.deepEqual(await bound.getClient('https://as.example.com'), { issuer: 'https://as.example.com', clientId: 'my-client', tokenEndpointAuthMethod: 'none', source: 'pre-registered' });
    await bound.saveClient({ issuer: 'https://as.example.com', clientId: 'dcr-1', tokenEndpointAuthMethod: 'none', source: 'dcr' });
    assert.equal((await bound.getClient('https://as.example.com'))?.clientId, 'dcr-1');
    assert.equal(await store.forServer('https://other.example.com/mcp').getClient('https://as.example.com'), undefined, 'registrations are per server');
  });

  it('remove (logout) deletes the file; deleteTokens keeps the registration', async () => {
    const store = await files();
    const bound = store.forServer(A);
    await bound.saveClient({ issuer: 'https://as.example.com', clientId: 'c', tokenEndpointAuthMethod: 'none', source: 'dcr' });
    await bound.saveTokens(A, tokens('t1'));
    await bound.deleteTokens(A);
    assert.equal(await bound.getTokens(A), undefined);
    assert.equal((await bound.getClient('https://as.example.com'))?.clientId, 'c');
    assert.equal(await store.remove(A), true);
    await assert.rejects(stat(store.pathFor(A)), { code: 'ENOENT' });
    assert.equal(await store.remove(A), false);
  });
});
