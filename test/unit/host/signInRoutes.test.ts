// The per-user sign-in routes without an authorization server: what is refused before anything
// is sent to one (an expired link, an opener without a gateway token, another principal, a
// callback without the browser's cookie), and the pages' headers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenDigest } from '../../../src/auth/resource/staticTokens.js';
import { MemoryConnectionStore } from '../../../src/host/connections.js';
import { PerUserSignIn, SIGN_IN_LINK_TTL_MS } from '../../../src/host/perUserSignIn.js';
import { signInRoutes } from '../../../src/host/signInRoutes.js';
import type { HttpRequestLike } from '../../../src/transport/http/server/types.js';

const T = { timeout: 10_000 };
const TOKENS = { alice: 'alice-token-0123456789abcdef0123456789ab', bob: 'bob-token-0123456789abcdef0123456789abcd' };

function world() {
  let now = 1_700_000_000_000;
  const store = new MemoryConnectionStore();
  let fetched = 0;
  const signIn = new PerUserSignIn({
    serverId: 'gh',
    serverUrl: 'https://mcp.example.com/mcp',
    store,
    gatewayUrl: 'https://gw.example.com',
    now: () => now,
    fetch: () => {
      fetched++;
      return Promise.reject(new Error('no authorization server in this test'));
    },
  });
  const tokens = Object.entries(TOKENS).map(([name, token]) => ({ name, sha256: tokenDigest(token), scopes: [] }));
  const routes = signInRoutes({ signIn: (identity) => (identity === signIn.identity ? signIn : undefined), store, auth: { tokens }, secure: true, now: () => now });
  const request = (method: string, url: string, init: { body?: string; cookie?: string } = {}): HttpRequestLike => {
    const parsed = new URL(url, 'https://gw.example.com');
    return {
      method,
      path: parsed.pathname,
      ...(parsed.search !== '' ? { query: parsed.search.slice(1) } : {}),
      header: (name) => (name === 'cookie' ? init.cookie : name === 'content-type' ? 'application/x-www-form-urlencoded' : undefined),
      ...(init.body !== undefined ? { body: new TextEncoder().encode(init.body) } : {}),
    };
  };
  const link = async (who: string): Promise<string> => {
    const answer = await signIn.credentialFor({ id: who });
    assert.equal(answer.kind, 'sign-in');
    return answer.kind === 'sign-in' ? new URL(answer.url).pathname : '';
  };
  return { store, routes, request, link, advance: (ms: number) => (now += ms), fetched: () => fetched };
}

describe('host/signInRoutes (no authorization server reached)', () => {
  it('the link page is no-store, not framable, and asks for the person\'s own token', T, async () => {
    const w = world();
    const path = await w.link('alice');
    assert.ok(path.startsWith('/oauth/start/'));
    const page = await w.routes.handle(w.request('GET', path));
    assert.equal(page?.status, 200);
    assert.equal(page?.headers['cache-control'], 'no-store');
    assert.equal(page?.headers['x-frame-options'], 'DENY');
    assert.match(String(page?.body), /name="token"/);
    assert.equal(w.fetched(), 0);
  });

  it('link-opened-without-a-gateway-token is refused and does not spend the link', T, async () => {
    const w = world();
    const path = await w.link('alice');
    assert.equal((await w.routes.handle(w.request('POST', path, { body: 'token=' })))?.status, 401);
    assert.equal((await w.routes.handle(w.request('POST', path, { body: 'token=not-a-gateway-token' })))?.status, 401);
    // Not spent: a later opener still finds it (bob is refused as another principal, not as a used link).
    assert.equal((await w.routes.handle(w.request('POST', path, { body: `token=${TOKENS.bob}` })))?.status, 403);
    assert.equal(w.fetched(), 0);
  });

  it('sign-in-link-opened-by-another-principal is refused before any request to the authorization server, and spent', T, async () => {
    const w = world();
    const path = await w.link('alice');
    const refused = await w.routes.handle(w.request('POST', path, { body: `token=${TOKENS.bob}` }));
    assert.equal(refused?.status, 403);
    assert.equal(refused?.headers['location'], undefined);
    assert.equal(refused?.headers['set-cookie'], undefined);
    assert.equal((await w.routes.handle(w.request('POST', path, { body: `token=${TOKENS.alice}` })))?.status, 410);
    assert.equal(w.fetched(), 0);
  });

  it('expired-sign-in-link is refused', T, async () => {
    const w = world();
    const path = await w.link('alice');
    w.advance(SIGN_IN_LINK_TTL_MS + 1);
    assert.equal((await w.routes.handle(w.request('POST', path, { body: `token=${TOKENS.alice}` })))?.status, 410);
    assert.equal(w.fetched(), 0);
  });

  it('callback-without-state or without the browser cookie is refused; forged-callback-for-a-link-id (the link id as state) too', T, async () => {
    const w = world();
    const path = await w.link('alice');
    const id = path.slice('/oauth/start/'.length);
    assert.equal((await w.routes.handle(w.request('GET', '/oauth/callback?code=x')))?.status, 400);
    assert.equal((await w.routes.handle(w.request('GET', `/oauth/callback?code=x&state=${id}`)))?.status, 403);
    assert.equal((await w.routes.handle(w.request('GET', `/oauth/callback?code=x&state=${id}`, { cookie: `sb_signin_${id.slice(0, 16)}=guess` })))?.status, 403);
    // The link was not spent by any of these.
    assert.equal((await w.store.takeSignIn(id, 1_700_000_000_000))?.principal, 'alice');
  });
});
