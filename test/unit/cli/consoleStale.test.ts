// `switchboard console` with the gateway stopped (#33): a stale URL is a clear failure, not exit 0.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli } from './cliProcess.js';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('cli: switchboard console with the gateway stopped', { timeout: 60_000 }, () => {
  it('a stale console-url exits 1 and says the gateway is not running', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-console-stale-'));
    try {
      await writeFile(join(dir, 'switchboard.json'), '{"mcpServers":{},"switchboard":{"stateDir":".switchboard"}}');
      await mkdir(join(dir, '.switchboard'));
      await writeFile(join(dir, '.switchboard', 'console-url'), `http://127.0.0.1:${await closedPort()}/\n`);
      const out = await cli(['console', '--print', '--config', join(dir, 'switchboard.json')]);
      assert.equal(out.code, 1);
      assert.equal(out.stdout, '');
      assert.match(out.stderr, /The gateway is not running: nothing answers at http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
