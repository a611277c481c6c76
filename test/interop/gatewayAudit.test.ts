// E2E: the real `switchboard gateway` writes an audit record for every call before it answers.
// Killed with SIGKILL in the middle of a burst of 1,000 calls, it has lost no record of a call
// whose answer was sent; `switchboard audit verify` finds the chain intact, and then finds an
// edited record.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { nodeFetch } from '../../src/adapters/nodeFetch.js';
import { McpClient } from '../../src/client/mcpClient.js';
import { SqliteAuditLog } from '../../src/store/sqliteAudit.js';
import { THIS_PROCESS } from '../../src/cli/auditFiles.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { MAIN, everythingEntry, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from './fixtures/gatewayHarness.js';

let config: GatewayConfig;
let gateway: RunningGateway;

before(async () => {
  config = await writeConfig({ everything: everythingEntry() }, { namespacing: 'never' });
  gateway = await startGateway(config);
});

after(async () => {
  await gateway.stop();
  await config.remove();
});

const auditDb = (): string => join(config.dir, '.switchboard', 'audit.db');
const cli = (...args: string[]) => spawnSync(process.execPath, [MAIN, 'audit', ...args, '--config', config.file], { cwd: config.dir, encoding: 'utf8' });

/** A burst of 1,000 calls through `target`, SIGKILLed after 300 answers: every answered call has its record in `dbFile`. */
async function burstThenKill(target: RunningGateway, dbFile: string): Promise<void> {
  const client = new McpClient({ name: 'burst', version: '1' });
  await client.connect(new StreamableHttpClientTransport({ url: target.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${target.token}` } }));
  const answered: string[] = [];
  let next = 0;
  const exited = new Promise<void>((resolve) => target.child.once('exit', () => resolve()));
  const worker = async (): Promise<void> => {
    while (next < 1000) {
      const message = `m${next++}`;
      try {
        const result = await client.callTool('echo', { message });
        if (result.isError !== true) answered.push(message);
      } catch {
        return; // the gateway is gone
      }
      // Kill it once a good part of the burst is answered, with calls in flight.
      if (answered.length === 300) target.child.kill('SIGKILL');
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await exited;
  await client.close().catch(() => undefined);
  assert.ok(answered.length >= 300 && answered.length < 1000, `answered ${answered.length}`);

  // Opened as `switchboard audit` opens it: with `batch`, rows answered but not yet committed when the
  // gateway died are in its pending file, and opening the log commits them.
  const log = SqliteAuditLog.open(dbFile, { process: THIS_PROCESS });
  const lines = log.read().filter((r) => r.method === 'tools/call');
  assert.equal(log.verify().ok, true);
  await log.close();
  const ok = lines.filter((l) => l.outcome === 'ok');
  assert.ok(ok.length >= answered.length, `${ok.length} records for ${answered.length} answers`);
  // Every answered call is there by its argument digest.
  const { createHash } = await import('node:crypto');
  const digests = new Set(ok.map((l) => l.argumentsDigest));
  const missing = answered.filter((m) => !digests.has(`sha256:${createHash('sha256').update(JSON.stringify({ message: m })).digest('hex')}`));
  assert.deepEqual(missing, []);
}

describe('e2e: the gateway audit log', () => {
  it('SIGKILL during a burst of 1,000 calls loses no record of a call whose answer was sent', async () => {
    await burstThenKill(gateway, auditDb());
  });

  it('audit.durability batch: SIGKILL during a burst still loses no record of a call whose answer was sent', async () => {
    const batch = await writeConfig({ everything: everythingEntry() }, { namespacing: 'never', audit: { durability: 'batch' } });
    try {
      await burstThenKill(await startGateway(batch), join(batch.dir, '.switchboard', 'audit.db'));
    } finally {
      await batch.remove();
    }
  });

  it('`switchboard audit verify` finds the chain intact after the kill, and names an edited record', () => {
    const intact = cli('verify');
    assert.equal(intact.status, 0, intact.stdout + intact.stderr);
    assert.match(intact.stdout, /^intact: \d+ records, head sha256:[0-9a-f]{64}$/m);
    const tail = cli('tail', '-n', '2');
    assert.equal(tail.status, 0, tail.stderr);
    assert.match(tail.stdout, /^#\d+ \S+ tools\/call everything echo by default -> ok/m);
    const exported = cli('export', '--from', '1');
    assert.equal(exported.status, 0, exported.stderr);
    const first = JSON.parse(exported.stdout.split('\n')[0] as string) as { seq: number; prev: string };
    assert.equal(first.seq, 1);

    const db = new Database(auditDb());
    db.prepare("UPDATE audit SET line = replace(line, '\"outcome\":\"ok\"', '\"outcome\":\"error\"') WHERE seq = 5").run();
    db.close();
    const tampered = cli('verify');
    assert.equal(tampered.status, 1);
    assert.match(tampered.stdout, /^record 5: the record does not match its hash \(edited\)$/m);
    assert.match(tampered.stdout, /^TAMPERED: /m);
  });
});

describe('e2e: switchboard.audit false', () => {
  it('the gateway answers calls, writes no audit log and says at start that nothing is recorded', async () => {
    const off = await writeConfig({ everything: everythingEntry() }, { namespacing: 'never', audit: false });
    const running = await startGateway(off);
    try {
      const client = new McpClient({ name: 'no-audit', version: '1' });
      await client.connect(new StreamableHttpClientTransport({ url: running.url, fetch: nodeFetch(), headers: { authorization: `Bearer ${running.token}` } }));
      const result = await client.callTool('echo', { message: 'hi' });
      assert.match(JSON.stringify(result.content), /hi/);
      assert.notEqual(result.isError, true);
      await client.close();
      assert.match(running.stderr(), /switchboard\.audit is false: requests are not recorded/);
      assert.equal(existsSync(join(off.dir, '.switchboard', 'audit.db')), false);
    } finally {
      await running.stop();
      await off.remove();
    }
  });
});
