// `switchboard login` / `logout` as real processes: what each refusal says (the server to name,
// what to add to the config), and `logout` on a server with nothing stored.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli } from './cliProcess.js';

let dir: string;
let file: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-login-'));
  file = join(dir, 'switchboard.json');
  await writeFile(
    file,
    JSON.stringify({
      mcpServers: { local: { command: 'node', args: ['x.js'] }, bare: { url: 'https://bare.example.com/mcp' }, signed: { url: 'https://signed.example.com/mcp' } },
      switchboard: { servers: { signed: { oauth: {} } } },
    }),
  );
});
after(() => rm(dir, { recursive: true, force: true }));

describe('switchboard login / logout', () => {
  it('names the server to sign in to, and lists the configured ones for an unknown name', async () => {
    const none = await cli(['login', '--config', file]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /name the server/);
    const unknown = await cli(['login', 'nope', '--config', file]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no server "nope" in .*switchboard\.json \(servers: local, bare, signed\)/);
  });

  it('refuses a stdio server and says what to add for a remote server without an oauth section', async () => {
    const local = await cli(['login', 'local', '--config', file]);
    assert.equal(local.code, 1);
    assert.match(local.stderr, /"local" is a stdio server/);
    const bare = await cli(['login', 'bare', '--config', file]);
    assert.equal(bare.code, 1);
    assert.match(bare.stderr, /"bare" has no OAuth settings: add "switchboard": \{ "servers": \{ "bare": \{ "oauth": \{\} \} \} \}/);
  });

  it('logout of a server with nothing stored says so and succeeds', async () => {
    const out = await cli(['logout', 'signed', '--config', file]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /No tokens stored for signed/);
  });
});
