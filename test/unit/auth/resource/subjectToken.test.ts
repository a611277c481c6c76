/**
 * The inbound token as a subject token, without passthrough: `subjectTokenOf` reads the token of
 * the very principal object the verifier returned (with `exchangeable: true`) and nothing else
 * can. Negatives are named after the leak they would be.
 */
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import * as jose from 'jose';
import { listen, type ListeningServer } from '../../../../src/adapters/nodeHttp.js';
import { McpClient } from '../../../../src/client/mcpClient.js';
import { allowInsecureRequests } from '../../../../src/auth/http.js';
import { createBearerVerifier } from '../../../../src/auth/resource/bearerVerifier.js';
import { protectedResourceMetadata } from '../../../../src/auth/resource/protectedResourceMetadata.js';
import { subjectTokenOf } from '../../../../src/auth/resource/subjectToken.js';
import { McpServer } from '../../../../src/server/mcpServer.js';
import { StreamableHttpClientTransport } from '../../../../src/transport/http/client/client.js';
import { createStreamableHttpHandler } from '../../../../src/transport/http/server/server.js';

const ISSUER = 'https://auth.example.test';
const RESOURCE = 'https://gateway.example.test/mcp';
const T = { timeout: 20_000 };

let keys: { privateKey: CryptoKey; jwks: jose.JSONWebKeySet };

async function token(claims: jose.JWTPayload = {}, aud = RESOURCE): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new jose.SignJWT({ sub: 'alice', scope: 'mcp:read', client_id: 'c', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(keys.privateKey);
}

const verifier = (exchangeable: boolean, resource = RESOURCE) =>
  createBearerVerifier({ resource, issuers: [ISSUER], jwks: keys.jwks, ...(exchangeable ? { exchangeable } : {}), [allowInsecureRequests]: true });

describe('subjectTokenOf: the exchange capability', T, () => {
  before(async () => {
    const pair = await jose.generateKeyPair('ES256', { extractable: true });
    keys = { privateKey: pair.privateKey, jwks: { keys: [{ ...(await jose.exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] } };
  });

  it('gives the verified token back for the principal an exchangeable verifier returned', T, async () => {
    const raw = await token();
    const principal = await verifier(true).verify(raw);
    assert.equal(subjectTokenOf(principal), raw);
    assert.equal(subjectTokenOf(undefined), undefined);
  });

  it('keeps each request its own token (two callers, two principals)', T, async () => {
    const v = verifier(true);
    const [a, b] = [await token({ sub: 'alice' }), await token({ sub: 'bob' })];
    const [pa, pb] = await Promise.all([v.verify(a), v.verify(b)]);
    assert.equal(subjectTokenOf(pa), a);
    assert.equal(subjectTokenOf(pb), b);
  });

  it('verifier-without-exchangeable-keeps-no-token (the default)', T, async () => {
    const principal = await verifier(false).verify(await token());
    assert.equal(subjectTokenOf(principal), undefined);
  });

  it('refused-token-is-never-remembered: a principal is only made for a verified token', T, async () => {
    const forOther = await token({}, 'https://other.example.test/mcp');
    await assert.rejects(verifier(true).verify(forOther));
  });

  it('token-passthrough-json-of-principal-reveals-no-token', T, async () => {
    const raw = await token();
    const principal = await verifier(true).verify(raw);
    assert.ok(!JSON.stringify(principal).includes(raw));
    assert.ok(!JSON.stringify({ id: 'alice', auth: principal }).includes(raw));
    const signature = raw.split('.')[2] as string;
    assert.ok(!JSON.stringify(principal).includes(signature));
  });

  it('token-passthrough-structured-clone-of-principal-reveals-no-token', T, async () => {
    const raw = await token();
    const principal = await verifier(true).verify(raw);
    const clone = structuredClone(principal);
    assert.ok(!JSON.stringify(clone).includes(raw));
    assert.equal(subjectTokenOf(clone), undefined, 'a clone is no capability');
  });

  it('token-passthrough-inspect-keys-and-spread-of-principal-reveal-no-token', T, async () => {
    const raw = await token();
    const principal = await verifier(true).verify(raw);
    assert.ok(!inspect(principal, { depth: 10, showHidden: true }).includes(raw));
    assert.ok(!Object.getOwnPropertyNames(principal).some((k) => String((principal as unknown as Record<string, unknown>)[k]).includes(raw)));
    assert.equal(Object.getOwnPropertySymbols(principal).length, 0);
    assert.equal(subjectTokenOf({ ...principal }), undefined, 'a copy is no capability');
  });

  it('the very principal object reaches a handler behind the HTTP transport auth option (the host call scope)', T, async () => {
    const pair = { server: undefined as ListeningServer | undefined };
    const mcp = new McpServer({ name: 'front', version: '1.0.0' });
    const seen: boolean[] = [];
    // The handler learns only whether the capability works, and that it is the caller's token.
    const expected: string[] = [];
    mcp.tool('probe', { description: 'probe', inputSchema: { type: 'object', properties: {} } }, (_args, ctx) => {
      seen.push(subjectTokenOf(ctx.principal?.auth) === expected[0]);
      return JSON.stringify(ctx.principal);
    });
    const ref: { handler?: ReturnType<typeof createStreamableHttpHandler> } = {};
    pair.server = await listen({
      handle: (r) => ref.handler?.handle(r) ?? Promise.resolve({ status: 503, headers: {} }),
      fetch: (r) => ref.handler?.fetch(r) ?? Promise.resolve(new Response(null, { status: 503 })),
      maxBodyBytes: 1 << 20,
      sessionCount: 0,
      close: () => ref.handler?.close() ?? Promise.resolve(),
    });
    const url = `${pair.server.url.replace(/\/$/, '')}/mcp`;
    const resourceMetadata = protectedResourceMetadata({ resource: url, authorizationServers: [ISSUER], [allowInsecureRequests]: true });
    ref.handler = createStreamableHttpHandler(mcp, { path: '/mcp', auth: { verifier: verifier(true, url), resourceMetadata } });
    const raw = await token({}, url);
    expected.push(raw);
    const client = new McpClient({ name: 'probe', version: '1' }, { defaultTimeoutMs: 10_000 });
    try {
      await client.connect(new StreamableHttpClientTransport({ url, authorize: () => Promise.resolve(raw) }));
      const result = await client.callTool('probe', {});
      assert.deepEqual(seen, [true]);
      assert.ok(!JSON.stringify(result).includes(raw), 'the principal a handler can serialize carries no token');
    } finally {
      await client.close();
      await ref.handler.close();
      await pair.server.close();
      await mcp.close();
    }
  });
});

