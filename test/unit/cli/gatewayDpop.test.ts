// The gateway in OAuth mode with DPoP (gateway.auth.oauth.dpop, RFC 9449), over real HTTP with
// the dev authorization server as the issuer: two gateway instances share the DPoP replay cache
// and nonces in the real Redis (--cache), so a proof used on one is a replay on the other and a
// nonce handed out by one is good at the other; every refused proof is named after the attack
// it stands for; with Redis unreachable a DPoP request is refused (503), never let through.
// https://datatracker.ietf.org/doc/html/rfc9449
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as jose from 'jose';
import type { ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { createDpopProofer, generateDpopKey, type DpopProofer } from '../../../src/auth/client/dpop.js';
import type { DevAuthorizationServer } from '../../../src/auth/dev/devAuthorizationServer.js';
import { serveGatewayHttp } from '../../../src/cli/gatewayHttp.js';
import { gatewayFrontDoor } from '../../../src/host/openGateway.js';
import type { GatewayDpopOptions } from '../../../src/cli/gatewayOAuth.js';
import { Gateway } from '../../../src/host/gateway.js';
import { Host } from '../../../src/host/host.js';
import { McpServer } from '../../../src/server/mcpServer.js';
import { RedisDpopNonceSource } from '../../../src/store/redis/redisDpopNonces.js';
import { RedisDpopReplayCache } from '../../../src/store/redis/redisSingleUse.js';
import { createLineLogger, silentLogger } from '../../../src/util/logger.js';
import { clock, startAuthorizationServer } from '../../e2e/remoteOAuthSupport.js';
import { REDIS_URL, TcpGate, openTestRedis } from '../../contract/stores/backends.js';
import { memoryServers, memorySpec } from '../host/support/memoryServers.js';
import { postToolCall } from './support/toolCall.js';

const AUDIENCE = 'https://gateway.example.test/mcp';
const time = clock();
let as: DevAuthorizationServer;
let host: Host;
let gateway: Gateway;
const closers: (() => Promise<void>)[] = [];
/** Two instances sharing Redis (nonces demanded), and one whose Redis connection goes through a gate. */
let first: string;
let second: string;
let gated: string;
let redisGate: TcpGate;
const gatedLog: string[] = [];

async function instance(dpop: GatewayDpopOptions, logger = silentLogger): Promise<string> {
  const running: ListeningServer = await serveGatewayHttp(gatewayFrontDoor(gateway, host), {
    host: '127.0.0.1',
    port: 0,
    path: '/mcp',
    logger,
    auth: { oauth: { issuer: as.issuer, audience: AUDIENCE, jwksUri: undefined, now: time.now, dpop } },
  });
  closers.push(() => running.close());
  return new URL('/mcp', running.url).href;
}

before(async () => {
  const a = await startAuthorizationServer(time.now);
  as = a.as;
  closers.push(a.close);
  const servers = memoryServers((id) => {
    const server = new McpServer({ name: id, version: '1' });
    server.tool('probe', { description: 'Answers.' }, () => 'probed');
    return server;
  });
  host = await Host.open({ servers: [memorySpec('inner')], transport: servers.factory, logger: silentLogger });
  await host.start();
  gateway = new Gateway(host);
  closers.push(async () => {
    await gateway.close();
    await host.close();
  });
  // Two connections on one key prefix: two gateway instances started with the same --cache.
  const redisA = await openTestRedis();
  const redisB = await openTestRedis({ prefix: redisA.prefix });
  first = await instance({ required: false, nonce: true, replayCache: new RedisDpopReplayCache(redisA), nonces: new RedisDpopNonceSource(redisA) });
  second = await instance({ required: false, nonce: true, replayCache: new RedisDpopReplayCache(redisB), nonces: new RedisDpopNonceSource(redisB) });
  redisGate = new TcpGate(REDIS_URL);
  await redisGate.open();
  closers.push(() => redisGate.close());
  const redisC = await openTestRedis({ prefix: redisA.prefix, url: redisGate.via(REDIS_URL), commandTimeoutMs: 500 });
  gated = await instance({ required: false, nonce: false, replayCache: new RedisDpopReplayCache(redisC) }, createLineLogger((line) => gatedLog.push(line), 'error'));
});

after(async () => {
  for (const close of closers.reverse()) await close();
});

const clientKey = await generateDpopKey();
const client = createDpopProofer(clientKey, time.now);
const jkt = await client.thumbprint();

function dpopToken(sub = 'alice', thumbprint = jkt): Promise<string> {
  return as.signAccessToken({ aud: AUDIENCE, sub, cnf: { jkt: thumbprint } });
}

/** POSTs a tools/call to `endpoint` with `Authorization: <scheme> <token>` and, when given, the `DPoP` proof. */
function call(endpoint: string, token: string, proof: string | undefined, scheme = 'DPoP'): Promise<Response> {
  return postToolCall(endpoint, 'probe', { authorization: `${scheme} ${token}`, ...(proof === undefined ? {} : { dpop: proof }) });
}

/** A proof for POST to the gateway's public URL (what `htu` must name, whichever instance serves it). */
function proofFor(token: string, proofer: DpopProofer = client, method = 'POST', url = AUDIENCE): Promise<string> {
  return proofer.proof(method, url, token);
}

async function assertProofRefused(response: Response, error = 'invalid_dpop_proof'): Promise<string> {
  assert.equal(response.status, 401, await response.clone().text());
  const challenge = response.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^DPoP /);
  assert.ok(challenge.includes(`error="${error}"`), challenge);
  return challenge;
}

async function assertServed(response: Response): Promise<void> {
  assert.equal(response.status, 200, await response.clone().text());
  assert.match(await response.text(), /probed/);
}

describe('gateway OAuth mode with DPoP, replay cache and nonces in Redis', () => {
  before(async () => {
    // The first request has no nonce: the gateway hands one out (RFC 9449 section 9).
    const token = await dpopToken();
    const response = await call(first, token, await proofFor(token));
    await assertProofRefused(response, 'use_dpop_nonce');
    assert.ok(client.observe(AUDIENCE, response), 'no DPoP-Nonce header');
  });

  it('advertises DPoP in its Protected Resource Metadata', async () => {
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', first));
    const document = (await response.json()) as { dpop_signing_alg_values_supported?: string[]; dpop_bound_access_tokens_required?: boolean };
    assert.ok(document.dpop_signing_alg_values_supported?.includes('ES256'));
    assert.equal(document.dpop_bound_access_tokens_required, false);
  });

  it('serves a DPoP-bound token with a fresh proof on each instance; a nonce handed out by one instance is good at the other', async () => {
    const token = await dpopToken();
    await assertServed(await call(first, token, await proofFor(token)));
    await assertServed(await call(second, token, await proofFor(token)));
  });

  it('DPoP proof replay across instances: a proof used on one instance is refused by another', async () => {
    const token = await dpopToken();
    const proof = await proofFor(token);
    await assertServed(await call(first, token, proof));
    const challenge = await assertProofRefused(await call(second, token, proof));
    assert.match(challenge, /already used/);
    await assertProofRefused(await call(first, token, proof));
  });

  it('forged proof: a proof whose signature does not verify is refused', async () => {
    const token = await dpopToken();
    const [header, , signature] = (await proofFor(token)).split('.');
    const claims = jose.decodeJwt(await proofFor(token));
    const payload = Buffer.from(JSON.stringify({ ...claims, jti: 'chosen-by-the-attacker' })).toString('base64url');
    assert.match(await assertProofRefused(await call(first, token, `${header}.${payload}.${signature}`)), /bad signature/);
  });

  it('proof for another request: a proof made for another URL (htu) or method (htm) is refused', async () => {
    const token = await dpopToken();
    assert.match(await assertProofRefused(await call(first, token, await proofFor(token, client, 'POST', 'https://other.example.test/mcp'))), /htu/);
    assert.match(await assertProofRefused(await call(second, token, await proofFor(token, client, 'GET'))), /htm/);
  });

  it('pre-generated proof: a proof whose iat is past the acceptance window is refused', async () => {
    const token = await dpopToken();
    const stale = createDpopProofer(clientKey, () => time.now() - 10 * 60_000);
    stale.setNonce(AUDIENCE, jose.decodeJwt(await proofFor(token)).nonce as string);
    assert.match(await assertProofRefused(await call(first, token, await proofFor(token, stale))), /too old/);
  });

  it('stolen token: a proof signed by another key than the token is bound to is refused', async () => {
    const token = await dpopToken();
    const thief = createDpopProofer(await generateDpopKey(), time.now);
    thief.setNonce(AUDIENCE, jose.decodeJwt(await proofFor(token)).nonce as string);
    await assertProofRefused(await call(second, token, await proofFor(token, thief)));
  });

  it('stale nonce: a made-up nonce is refused with a fresh one from the shared source', async () => {
    const token = await dpopToken();
    const guesser = createDpopProofer(clientKey, time.now);
    guesser.setNonce(AUDIENCE, 'guessed-nonce');
    const response = await call(second, token, await proofFor(token, guesser));
    await assertProofRefused(response, 'use_dpop_nonce');
    assert.equal(response.headers.get('dpop-nonce'), jose.decodeJwt(await proofFor(token)).nonce);
  });

  it('downgrade: a DPoP-bound token presented as a bearer token is refused', async () => {
    const response = await call(first, await dpopToken(), undefined, 'Bearer');
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_token"/);
  });

  it('Redis down: a DPoP request is refused with 503 and the cause logged (fail closed); served again once Redis is back', async () => {
    const token = await dpopToken();
    await assertServed(await call(gated, token, await proofFor(token)));
    await redisGate.close();
    const refused = await call(gated, token, await proofFor(token));
    assert.equal(refused.status, 503);
    assert.deepEqual(await refused.json(), { error: 'server_error' });
    assert.ok(gatedLog.some((line) => /DPoP replay check failed, request refused: .*Redis is unavailable for the DPoP replay check/.test(line)), gatedLog.join('\n'));
    await redisGate.open();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await call(gated, token, await proofFor(token));
      if (response.status === 200) break;
      assert.equal(response.status, 503, 'only "unavailable" while Redis comes back');
      assert.ok(Date.now() < deadline, 'the gateway did not resume after Redis came back');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});
