// The sealing of per-user connection secrets (AES-256-GCM bound to the row) and the
// connections key: its file (created once, mode 0600, never replaced), the environment
// variable, and the key file's place among the gateway's protected paths (a fronted filesystem
// server is never asked to read it). Judged by what opened and by whether a request reached the server.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connectionsSealer, CONNECTIONS_KEY_ENV } from '../../../src/cli/connectionStores.js';
import { parseConfig } from '../../../src/host/config.js';
import { interceptContext } from '../../../src/host/interceptors.js';
import { gatewayProtectedPaths, protectedPathsInterceptor } from '../../../src/host/protectedPathsInterceptor.js';
import { protectedPathSet } from '../../../src/host/protectedPaths.js';
import { defaultEnvironment } from '../../../src/transport/stdio/env.js';
import { ConnectionSealer, ConnectionSealError, connectionsKeyFile, loadConnectionsKeyFile, parseConnectionsKey } from '../../../src/store/connectionSealer.js';

const T = { timeout: 5_000 };
const dir = mkdtempSync(join(tmpdir(), 'sb-connection-key-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(dir, `state-${n++}`);
const reason = (r: string) => (e: unknown) => e instanceof ConnectionSealError && e.reason === r;

describe('ConnectionSealer', () => {
  const sealer = ConnectionSealer.fromKey(randomBytes(32));

  it('opens what it sealed under the same context; each seal is different (fresh IV)', T, () => {
    const a = sealer.seal('{"accessToken":"AT"}', ['connection', 'alice', 'https://s']);
    const b = sealer.seal('{"accessToken":"AT"}', ['connection', 'alice', 'https://s']);
    assert.notDeepEqual(a, b);
    assert.equal(sealer.open(a, ['connection', 'alice', 'https://s'], 'x'), '{"accessToken":"AT"}');
  });

  it('row-swap-to-another-principal: the context binds principal and server, without ambiguity', T, () => {
    const sealed = sealer.seal('secret', ['connection', 'alice', 'https://s']);
    assert.throws(() => sealer.open(sealed, ['connection', 'mallory', 'https://s'], 'x'), reason('tampered'));
    assert.throws(() => sealer.open(sealed, ['connection', 'alice', 'https://other'], 'x'), reason('tampered'));
    // Moving a separator between the parts does not give the same context.
    const joined = sealer.seal('secret', ['connection', 'a', 'b c']);
    assert.throws(() => sealer.open(joined, ['connection', 'a b', 'c'], 'x'), reason('tampered'));
  });

  it('tampered-ciphertext: any flipped byte, a cut value or another format is refused', T, () => {
    const sealed = sealer.seal('secret-value', ['c']);
    for (let i = 1 + 8; i < sealed.byteLength; i++) {
      const copy = Buffer.from(sealed);
      copy[i] = (copy[i] as number) ^ 0x80;
      assert.throws(() => sealer.open(copy, ['c'], 'x'), reason('tampered'), `byte ${i}`);
    }
    assert.throws(() => sealer.open(sealed.subarray(0, 30), ['c'], 'x'), reason('tampered'));
    const other = Buffer.from(sealed);
    other[0] = 2;
    assert.throws(() => sealer.open(other, ['c'], 'x'), reason('tampered'));
  });

  it('wrong-key: another key is named as such, not as tampering', T, () => {
    const sealed = ConnectionSealer.fromKey(randomBytes(32)).seal('secret', ['c']);
    assert.throws(() => sealer.open(sealed, ['c'], 'the connection'), (e: unknown) => reason('wrong-key')(e) && /SWITCHBOARD_CONNECTIONS_KEY/.test((e as Error).message));
  });

  it('bad-key: a key that is not 32 bytes is refused', T, () => {
    assert.throws(() => ConnectionSealer.fromKey(randomBytes(16)), reason('bad-key'));
  });
});

describe('the connections key', () => {
  it('key file mode 0600: created on first use with 32 random bytes, the same on every later load', T, () => {
    const state = fresh();
    const first = loadConnectionsKeyFile(connectionsKeyFile(state));
    assert.equal(first.byteLength, 32);
    assert.equal(statSync(connectionsKeyFile(state)).mode & 0o777, 0o600);
    assert.equal(statSync(state).mode & 0o777, 0o700);
    assert.deepEqual(loadConnectionsKeyFile(connectionsKeyFile(state)), first);
  });

  it('key-file-readable-by-others: a key file other users may read is refused, not used', T, () => {
    const file = connectionsKeyFile(fresh());
    loadConnectionsKeyFile(file);
    chmodSync(file, 0o644);
    assert.throws(() => loadConnectionsKeyFile(file), (e: unknown) => reason('bad-key')(e) && /chmod 600/.test((e as Error).message));
  });

  it('key-file-replaced-by-junk: a damaged key file is refused and kept (never a new key that would orphan the connections)', T, () => {
    const file = connectionsKeyFile(fresh());
    loadConnectionsKeyFile(file);
    writeFileSync(file, 'short\n', { mode: 0o600 });
    assert.throws(() => loadConnectionsKeyFile(file), reason('bad-key'));
    assert.equal(readFileSync(file, 'utf8'), 'short\n');
  });

  it('SWITCHBOARD_CONNECTIONS_KEY wins over the file (hex or base64); a short one is refused', T, () => {
    const key = randomBytes(32);
    const state = fresh();
    const hex = connectionsSealer(state, { [CONNECTIONS_KEY_ENV]: key.toString('hex') });
    const b64 = connectionsSealer(state, { [CONNECTIONS_KEY_ENV]: key.toString('base64') });
    assert.equal(hex.sealer.keyId, ConnectionSealer.fromKey(key).keyId);
    assert.equal(b64.sealer.keyId, hex.sealer.keyId);
    assert.equal(hex.source, CONNECTIONS_KEY_ENV);
    assert.throws(() => statSync(connectionsKeyFile(state)), /ENOENT/, 'a key file was created although the variable was set');
    assert.throws(() => parseConnectionsKey(randomBytes(16).toString('hex'), 'the variable'), reason('bad-key'));
    const fromFile = connectionsSealer(state, {});
    assert.equal(fromFile.source, connectionsKeyFile(state));
  });

  it('key-in-server-environment: a stdio server launched by the gateway does not inherit SWITCHBOARD_CONNECTIONS_KEY', T, () => {
    const env = defaultEnvironment({ PATH: '/bin', [CONNECTIONS_KEY_ENV]: randomBytes(32).toString('hex') }, { API: 'x' });
    assert.deepEqual(env, { PATH: '/bin', API: 'x' });
  });

  it('fronted-server-reads-the-key: a tools/call naming connections.key never reaches the server', T, async () => {
    const config = parseConfig(JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['fs.js', '/proj'], cwd: '/proj' } }, switchboard: { stateDir: '/srv/state', roots: ['/proj'] } }), { file: '/proj/switchboard.json', env: {} });
    // As the gateway command lists it (gatewayCommand.ts), besides the state folder it is in.
    const paths = protectedPathSet(gatewayProtectedPaths(config, '/', [{ path: connectionsKeyFile(config.stateDir), what: 'connections key' }]), { caseInsensitive: false });
    const interceptor = protectedPathsInterceptor({ paths, config: () => config, cwd: '/' });
    for (const path of ['/srv/state/connections.key', 'file:///srv/state/connections%2Ekey', '/proj/../srv/state/./connections.key', 'cat /srv/state/connections.key | base64']) {
      const ctx = interceptContext({ method: 'tools/call', principal: undefined, session: undefined, server: { id: 'fs' }, params: { name: 'read_text_file', arguments: { path } }, signal: new AbortController().signal, definition: { annotations: { readOnlyHint: true } } });
      let reached = false;
      await interceptor
        .intercept(ctx, () => {
          reached = true;
          return Promise.resolve({ content: [] });
        })
        .catch(() => undefined);
      assert.equal(reached, false, path);
    }
  });
});
