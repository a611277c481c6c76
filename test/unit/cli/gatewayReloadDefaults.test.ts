// The reload watcher parses a changed config as the gateway parsed it at start: a config without
// `stateDir` keeps the per-user default, so a change that only tightens (a deny rule added)
// applies live instead of being held as "stateDir changed" (a regression of the two #31 pieces
// meeting: the per-user state folder and the reload gate).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gatewayReload } from '../../../src/cli/gatewayReload.js';
import { loadConfig } from '../../../src/cli/hostSetup.js';
import type { HostConfig } from '../../../src/host/configTypes.js';
import { silentLogger } from '../../../src/util/logger.js';

describe('cli: config reload with the per-user default state folder', () => {
  it('a tightening change of a config without stateDir applies live', { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sb-reload-defaults-'));
    try {
      const file = join(dir, 'switchboard.json');
      const write = (rules: unknown[]): Promise<void> => writeFile(file, JSON.stringify({ mcpServers: {}, switchboard: { policy: { rules } } }));
      await write([]);
      let current: HostConfig = await loadConfig(file);
      await mkdir(current.stateDir, { recursive: true });
      const applied = new Promise<HostConfig>((resolve) => {
        const reload = gatewayReload({
          file,
          stateDir: current.stateDir,
          key: 'k'.repeat(43),
          logger: silentLogger,
          current: () => current,
          apply: (next) => {
            current = next;
            reload.close();
            resolve(next);
            return Promise.resolve();
          },
          launches: { get: () => Promise.resolve(undefined), set: () => Promise.resolve() },
        });
        void write([{ id: 'no-delete', when: "tool.name == 'delete_file'", outcome: 'deny' }]);
      });
      const next = await applied;
      assert.equal(next.stateDir, current.stateDir);
      assert.deepEqual(next.policy.rules.map((r) => r.id), ['no-delete']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
