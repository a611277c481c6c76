// A port already in use (a second `npm start`, another gateway) is one clear line that names
// --port, with no usage dump under it (#33, smaller things): for the gateway and the demo server.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli } from './cliProcess.js';

describe('cli: a port already in use', { timeout: 120_000 }, () => {
  let taken: Server;
  let port: number;
  let dir: string;
  before(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
    dir = await mkdtemp(join(tmpdir(), 'sb-port-'));
    await writeFile(join(dir, 'switchboard.json'), JSON.stringify({ mcpServers: {}, switchboard: { stateDir: join(dir, 'state') } }));
  });
  after(async () => {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('switchboard gateway: exits non-zero with the --port hint, in a few lines', { timeout: 60_000 }, async () => {
    const out = await cli(['gateway', '--config', join(dir, 'switchboard.json'), '--port', String(port), '--log-level', 'error'], { XDG_CONFIG_HOME: join(dir, 'user'), SWITCHBOARD_ANCHOR_DIR: join(dir, 'anchor') });
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port N`));
    assert.ok(!/Usage:/.test(out.stderr), out.stderr);
    assert.ok(out.stderr.trim().split('\n').length <= 3, out.stderr);
  });

  it('switchboard everything --http: the same hint', { timeout: 60_000 }, async () => {
    const out = await cli(['everything', '--http', '--port', String(port)]);
    assert.notEqual(out.code, 0);
    assert.match(out.stderr, /already in use.*--port N/);
  });
});
