// ServerSession state exported for, and imported from, a shared session record (another
// instance's): every member round-trips, and a damaged or hostile record cannot put a session
// into a state initialize would never produce.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportServerSession, importServerSession, ServerSession } from '../../../src/server/session.js';
import type { SessionPeer } from '../../../src/transport/types.js';

const peer: SessionPeer = { notify: () => undefined, request: () => Promise.resolve({}) };

function initialized(): ServerSession {
  const s = new ServerSession(peer);
  s.revision = '2025-11-25';
  s.clientCapabilities = { elicitation: {}, roots: { listChanged: true } };
  s.clientInfo = { name: 'client', version: '2.0.0' };
  s.initialized = true;
  s.logLevel = 'warning';
  s.subscriptions.add('file:///a');
  s.subscriptions.add('file:///b/');
  return s;
}

describe('ServerSession export/import', () => {
  it('round-trips every member through JSON', () => {
    const state = JSON.parse(JSON.stringify(exportServerSession(initialized()))) as Record<string, unknown>;
    const copy = new ServerSession(peer);
    importServerSession(copy, state);
    assert.equal(copy.revision, '2025-11-25');
    assert.deepEqual(copy.clientCapabilities, { elicitation: {}, roots: { listChanged: true } });
    assert.deepEqual(copy.clientInfo, { name: 'client', version: '2.0.0' });
    assert.equal(copy.initialized, true);
    assert.equal(copy.logLevel, 'warning');
    assert.deepEqual([...copy.subscriptions], ['file:///a', 'file:///b/']);
  });

  it('a later state replaces the log level and subscriptions (changed on another instance)', () => {
    const copy = initialized();
    importServerSession(copy, { ...exportServerSession(copy), logLevel: undefined, subscriptions: ['file:///c'] });
    assert.equal(copy.logLevel, undefined);
    assert.deepEqual([...copy.subscriptions], ['file:///c']);
  });

  it('tampered record: an unsupported revision, a bogus log level and non-object capabilities are ignored', () => {
    const copy = new ServerSession(peer);
    importServerSession(copy, { revision: '1999-01-01', logLevel: 'everything', clientCapabilities: 'all', clientInfo: ['x'], subscriptions: [42, 'file:///ok'] });
    assert.equal(copy.revision, undefined);
    assert.equal(copy.logLevel, undefined);
    assert.deepEqual(copy.clientCapabilities, {});
    assert.equal(copy.clientInfo, undefined);
    assert.deepEqual([...copy.subscriptions], ['file:///ok']);
  });

  it('tampered record: `initialized: false` cannot take an initialized session back (replay of an old state)', () => {
    const copy = initialized();
    importServerSession(copy, { initialized: false });
    assert.equal(copy.initialized, true);
  });
});
