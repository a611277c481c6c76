/**
 * The downstream OAuth token-store contract, run by `tokenStore.test.ts` against the token
 * files and PostgreSQL: credentials keyed by server identity, a store bound to one server that
 * answers nothing for any other (token confusion) and refuses to write there, concurrent edits
 * that lose nothing, and logout.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClientRegistration, TokenSet, TokenStore } from '../../../src/auth/client/tokenStore.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';

/** What both token stores offer. */
export interface ServerTokenStores {
  forServer(url: string, options?: { readonly clientId?: string | undefined }): TokenStore;
  hasTokens(url: string): Promise<boolean>;
  remove(url: string): Promise<boolean>;
}

const A = 'https://mcp.example.com/mcp';
const tokens = (accessToken: string): TokenSet => ({ accessToken, tokenType: 'Bearer', requestedScopes: ['mcp:read'], issuer: 'https://as.example.com', resource: A, refreshToken: `r-${accessToken}` });
const client = (issuer: string): ClientRegistration => ({ issuer, clientId: `id-${issuer}`, tokenEndpointAuthMethod: 'none', source: 'dcr' });

/** Runs the contract (a fresh, empty store per test). */
export function tokenStoreContract(name: string, open: () => Promise<ServerTokenStores>): void {
  describe(`token store contract: ${name}`, () => {
    it('round-trips tokens and client registrations by issuer; the same identity shares them', async () => {
      const stores = await open();
      const bound = stores.forServer(A);
      assert.equal(await bound.getTokens(A), undefined);
      assert.equal(await stores.hasTokens(A), false);
      await bound.saveTokens(A, tokens('t1'));
      await bound.saveClient(client('https://as.example.com'));
      const same = stores.forServer('https://MCP.example.com:443/mcp?x=1');
      assert.deepEqual(await same.getTokens(A), tokens('t1'));
      assert.deepEqual(await same.getClient('https://as.example.com'), client('https://as.example.com'));
      assert.equal(await same.getClient('https://other-as.example.com'), undefined);
      assert.equal(await stores.hasTokens(A), true);
      await bound.deleteClient('https://as.example.com');
      assert.equal(await bound.getClient('https://as.example.com'), undefined);
      await bound.deleteTokens(A);
      assert.equal(await bound.getTokens(A), undefined);
    });

    it('offers a pre-registered client id until a registration is stored', async () => {
      const stores = await open();
      const bound = stores.forServer(A, { clientId: 'pre' });
      assert.deepEqual(await bound.getClient('https://as.example.com'), { issuer: 'https://as.example.com', clientId: 'pre', tokenEndpointAuthMethod: 'none', source: 'pre-registered' });
      await bound.saveClient(client('https://as.example.com'));
      assert.equal((await bound.getClient('https://as.example.com'))?.clientId, 'id-https://as.example.com');
    });

    it('token confusion: another path, port, host or scheme gets none of the tokens', async () => {
      const stores = await open();
      await stores.forServer(A).saveTokens(A, tokens('t1'));
      for (const other of ['https://mcp.example.com/mcp2', 'https://mcp.example.com:8443/mcp', 'https://evil.example.com/mcp', 'http://mcp.example.com/mcp']) {
        assert.equal(await stores.forServer(other).getTokens(other), undefined, other);
      }
    });

    it('cross-server access: a store bound to one server answers nothing for another URL and refuses to save there', async () => {
      const stores = await open();
      const bound = stores.forServer(A);
      await bound.saveTokens(A, tokens('t1'));
      assert.equal(await bound.getTokens('https://evil.example.com/mcp'), undefined);
      await assert.rejects(bound.saveTokens('https://evil.example.com/mcp', tokens('x')), (error: unknown) => isMcpError(error, McpErrorCode.InvalidArgument));
      await bound.deleteTokens('https://evil.example.com/mcp');
      assert.equal((await bound.getTokens(A))?.accessToken, 't1');
    });

    it('concurrent edits of one server\'s record lose nothing (two refreshes and a registration at once)', async () => {
      const stores = await open();
      await Promise.all([
        stores.forServer(A).saveClient(client('https://as1.example.com')),
        stores.forServer(A).saveClient(client('https://as2.example.com')),
        stores.forServer(A).saveClient(client('https://as3.example.com')),
        stores.forServer(A).saveTokens(A, tokens('t2')),
      ]);
      const bound = stores.forServer(A);
      for (const issuer of ['https://as1.example.com', 'https://as2.example.com', 'https://as3.example.com']) assert.equal((await bound.getClient(issuer))?.issuer, issuer);
      assert.equal((await bound.getTokens(A))?.accessToken, 't2');
    });

    it('logout removes everything of that server and nothing of another', async () => {
      const stores = await open();
      const B = 'https://other.example.com/mcp';
      await stores.forServer(A).saveTokens(A, tokens('t1'));
      await stores.forServer(B).saveTokens(B, { ...tokens('tb'), resource: B });
      assert.equal(await stores.remove(A), true);
      assert.equal(await stores.remove(A), false);
      assert.equal(await stores.hasTokens(A), false);
      assert.equal(await stores.hasTokens(B), true);
    });
  });
}
