// Signed manifests end to end through the host: McpServer signs its lists by itself, the pins
// verify against trusted or pinned keys. Negative tests are named after the attack.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as jose from 'jose';
import { DeniedError } from '../../../../src/host/interceptors.js';
import { MemoryPinStore } from '../../../../src/host/pins/pinStore.js';
import type { SignaturePolicy, TrustedKey } from '../../../../src/host/pins/signatureCheck.js';
import {
  MANIFEST_META_KEY,
  generateSigningKey,
  importSigningKey,
  keyThumbprint,
  manifestPayload,
  readManifest,
  signManifest,
  signRotation,
  type ManifestSigningKey,
} from '../../../../src/protocol/manifest.js';
import type { McpServerOptions } from '../../../../src/server/mcpServer.js';
import { ADD, WEATHER, pinnedHost, spec, type TestTool } from './support.js';

async function newKey(alg: 'EdDSA' | 'ES256' = 'EdDSA'): Promise<ManifestSigningKey> {
  return importSigningKey((await generateSigningKey(alg)).privateJwk);
}

const trusted = (key: ManifestSigningKey, servers?: string[]): TrustedKey => ({ name: 'acme', jwk: key.publicJwk, ...(servers !== undefined ? { servers } : {}) });

/** A host over one server `w` signing with `key` (or unsigned), with `policy`. */
function signedHost(
  key: ManifestSigningKey | undefined,
  policy: SignaturePolicy,
  options: { trustedKeys?: TrustedKey[]; tools?: readonly TestTool[]; store?: MemoryPinStore; rotations?: string[]; server?: (id: string) => McpServerOptions; name?: string } = {},
) {
  const server = options.server ?? ((): McpServerOptions => (key === undefined ? {} : { signing: { key, ...(options.rotations !== undefined ? { rotations: options.rotations } : {}) } }));
  return pinnedHost([spec('w')], options.tools ?? [WEATHER, ADD], {
    ...(options.store !== undefined ? { store: options.store } : {}),
    server,
    ...(options.name !== undefined ? { name: () => options.name as string } : {}),
    trust: { trustedKeys: options.trustedKeys ?? [], signaturePolicy: () => policy },
  });
}

const names = (h: { host: { tools: readonly { name: string }[] } }): string[] => h.host.tools.map((t) => t.name);

describe('host/pins: signed manifests', () => {
  it('valid: a manifest signed by a trusted publisher key verifies; pins record trust trusted-publisher and the key', async () => {
    const key = await newKey();
    const h = await signedHost(key, 'require', { trustedKeys: [trusted(key)] });
    assert.deepEqual(names(h), ['weather', 'add']);
    const [record] = await h.store.load();
    assert.equal(record?.items['tool:weather']?.trust, 'trusted-publisher');
    assert.equal(record?.keyThumbprint, await keyThumbprint(key.publicJwk));
    await h.close();
  });

  it('valid (ES256, key not in the config): the key is pinned on first use (trust pinned-key)', async () => {
    const key = await newKey('ES256');
    const h = await signedHost(key, 'require');
    assert.deepEqual(names(h), ['weather', 'add']);
    assert.equal((await h.store.load())[0]?.items['tool:add']?.trust, 'pinned-key');
    await h.close();
  });

  it('rotated key: a new key is accepted through a rotation statement signed by the pinned key', async () => {
    const store = new MemoryPinStore();
    const oldKey = await newKey();
    const first = await signedHost(oldKey, 'require', { store });
    await first.close();
    const newer = await newKey();
    const rotation = await signRotation(oldKey, newer.publicJwk, 1_700_000_000);
    const second = await signedHost(newer, 'require', { store, rotations: [rotation] });
    assert.deepEqual(names(second), ['weather', 'add']);
    assert.equal((await store.load())[0]?.keyThumbprint, await keyThumbprint(newer.publicJwk));
    await second.close();
  });

  it('a change signed by a trusted publisher is accepted without a person (a signed update)', async () => {
    const key = await newKey();
    const h = await signedHost(key, 'require', { trustedKeys: [trusted(key)] });
    await h.change('w', [{ ...WEATHER, description: 'The weather in a city, with wind' }, ADD]);
    assert.equal(h.host.tool('weather')?.tool.description, 'The weather in a city, with wind');
    await h.close();
  });

  it('tampered manifest: a payload altered after signing fails verification; under require nothing is served', async () => {
    const key = await newKey();
    const jws = await signManifest(manifestPayload('w', { tools: [], prompts: [], resourceTemplates: [] }, 1), key);
    const [header, , signature] = jws.split('.');
    const forged = `${header}.${jose.base64url.encode(JSON.stringify({ v: 1, sub: 'w', iat: 1, tools: { weather: 'sha256:00' }, prompts: {}, resourceTemplates: {} }))}.${signature}`;
    await assert.rejects(readManifest(forged), /the signature does not verify/);
    // Through the host: a server whose list `_meta` carries the forged manifest.
    const tampered = await signedHostWithEnvelope(forged);
    assert.deepEqual(names(tampered), []);
    await assert.rejects(tampered.host.callTool('weather', { city: 'x' }), (e: unknown) => e instanceof DeniedError && /signed manifest is invalid: .*signature does not verify/.test(e.reason));
    await tampered.close();
  });

  it('tampered definition: a tool that differs from its signed digest is withheld under require, the others served', async () => {
    const key = await newKey();
    const signedFor = await signManifest(manifestPayload('w', { tools: [{ ...WEATHER, description: 'original' } as never, ADD as never], prompts: [], resourceTemplates: [] }, 1), key);
    const h = await signedHostWithEnvelope(signedFor, [trusted(key)]);
    assert.deepEqual(names(h), ['add']);
    assert.match(h.host.withheld.find((w) => w.name === 'weather')?.reason ?? '', /not covered by the server's signed manifest/);
    await h.close();
  });

  it('wrong key: a manifest signed by another key than the pinned one, without a rotation, is refused', async () => {
    const store = new MemoryPinStore();
    const first = await signedHost(await newKey(), 'require', { store });
    await first.close();
    const attacker = await newKey();
    const second = await signedHost(attacker, 'require', { store });
    assert.deepEqual(names(second), []);
    assert.match(second.host.withheld[0]?.reason ?? '', /signed by key .* pinned key is .* no rotation statement/);
    await second.close();
  });

  it('forged rotation: a rotation statement not signed by the pinned key does not hand over trust', async () => {
    const store = new MemoryPinStore();
    const first = await signedHost(await newKey(), 'require', { store });
    await first.close();
    const attacker = await newKey();
    const selfSigned = await signRotation(attacker, attacker.publicJwk, 1);
    const second = await signedHost(attacker, 'require', { store, rotations: [selfSigned] });
    assert.deepEqual(names(second), []);
    await second.close();
  });

  it('require with no signature: an unsigned server is not served at all, and says why', async () => {
    const h = await signedHost(undefined, 'require');
    assert.deepEqual(names(h), []);
    await assert.rejects(h.host.callTool('add', {}), (e: unknown) => e instanceof DeniedError && /sent no signed manifest, and its signature policy is "require"/.test(e.reason));
    assert.deepEqual(await h.store.load(), [], 'nothing was pinned on trust');
    await h.close();
  });

  it('replayed signature: a manifest signed for another server (its sub) is refused', async () => {
    const key = await newKey();
    const alphaManifest = await signManifest(manifestPayload('alpha', { tools: [WEATHER as never, ADD as never], prompts: [], resourceTemplates: [] }, 1), key);
    const h = await signedHostWithEnvelope(alphaManifest, [trusted(key)]);
    assert.deepEqual(names(h), []);
    assert.match(h.host.withheld[0]?.reason ?? '', /signed for server "alpha", but this server says it is "w" \(a replayed signature\)/);
    await h.close();
  });

  it('replayed signature under a borrowed name: a publisher key bound to other servers cannot vouch for this one', async () => {
    const key = await newKey();
    const h = await signedHost(key, 'require', { trustedKeys: [trusted(key, ['alpha'])] });
    assert.deepEqual(names(h), []);
    assert.match(h.host.withheld[0]?.reason ?? '', /may sign only for alpha, not for w/);
    await h.close();
  });

  it('warn: an invalid manifest is logged and the definitions are pinned as unsigned (first use)', async () => {
    const h = await signedHostWithEnvelope('not.a.jws', [], 'warn');
    assert.deepEqual(names(h), ['weather', 'add']);
    assert.equal((await h.store.load())[0]?.items['tool:weather']?.trust, 'first-use');
    await h.close();
  });
});

/** A server `w` whose list results carry `jws` as their manifest (set by middleware, not signed by the server). */
function signedHostWithEnvelope(jws: string, trustedKeys: TrustedKey[] = [], policy: SignaturePolicy = 'require') {
  return pinnedHost([spec('w')], [WEATHER, ADD], {
    trust: { trustedKeys, signaturePolicy: () => policy },
    server: () => ({}),
    middleware: async (ctx, next) => {
      const result = await next();
      return ctx.method.endsWith('/list') ? { ...result, _meta: { [MANIFEST_META_KEY]: { jws } } } : result;
    },
  });
}
