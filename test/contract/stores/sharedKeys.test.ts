/**
 * The keys every gateway instance shares through PostgreSQL (`pgSharedKeys.ts`), against the
 * real server: the MRTR `requestState` sealing key, so a 2026-07-28 retry that a load balancer
 * sends to another instance still opens its state.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/input-required
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestStateSealer } from '../../../src/server/requestState.js';
import { sharedKey, SHARED_KEY_BYTES } from '../../../src/store/postgres/pgSharedKeys.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';
import { freshSchema, openTestPostgres } from './backends.js';

describe('shared keys in PostgreSQL', () => {
  it('instances starting together on one schema agree on one 32-byte key, and keep it across a restart', async () => {
    const schema = freshSchema();
    const [a, b, c] = await Promise.all([openTestPostgres({ schema }), openTestPostgres({ schema }), openTestPostgres({ schema })]);
    const keys = await Promise.all([a, b, c].map((db) => sharedKey(db, 'mrtr-request-state')));
    assert.equal(keys[0]?.byteLength, SHARED_KEY_BYTES);
    assert.deepEqual(keys[1], keys[0]);
    assert.deepEqual(keys[2], keys[0]);
    const restarted = await openTestPostgres({ schema });
    assert.deepEqual(await sharedKey(restarted, 'mrtr-request-state'), keys[0]);
  });

  it('another deployment (schema) and another key name get other bytes', async () => {
    const [one, two] = await Promise.all([openTestPostgres(), openTestPostgres()]);
    const key = await sharedKey(one, 'mrtr-request-state');
    assert.notDeepEqual(await sharedKey(two, 'mrtr-request-state'), key);
    assert.notDeepEqual(await sharedKey(one, 'other'), key);
  });

  it('state sealed by one instance opens on another (a retry routed elsewhere by the load balancer)', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([openTestPostgres({ schema }), openTestPostgres({ schema })]);
    const sealerA = await RequestStateSealer.create({ keys: [await sharedKey(a, 'mrtr-request-state')] });
    const sealerB = await RequestStateSealer.create({ keys: [await sharedKey(b, 'mrtr-request-state')] });
    const binding = { method: 'tools/call', digest: 'sha256:x', principal: 'alice' };
    const state = await sealerA.seal(binding, { answers: { city: 'Lyon' }, round: 1 });
    const opened = await sealerB.open(state, binding);
    assert.ok(opened.ok, 'the state opens on the other instance');
    assert.deepEqual(opened.content.answers, { city: 'Lyon' });
    // Without the shared key (each instance's own random key, the default) it does not.
    const alone = await RequestStateSealer.create();
    assert.deepEqual(await alone.open(state, binding), { ok: false, reason: 'tampered' });
  });

  it('a damaged key (wrong length) is refused, never silently replaced (which would strand every sealed state)', async () => {
    const db = await openTestPostgres();
    await sharedKey(db, 'mrtr-request-state');
    await db.query('damaging the key', "UPDATE shared_keys SET value = '\\x0102'::bytea WHERE name = 'mrtr-request-state'");
    await assert.rejects(sharedKey(db, 'mrtr-request-state'), (error: unknown) => isMcpError(error, McpErrorCode.StoreCorrupt) && /not 32 bytes/.test((error as Error).message));
  });
});
