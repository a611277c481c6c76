// E2E through the real `switchboard gateway` process: the state stores' integrity anchor
// (docs/security.md, "State that cannot be reset by moving files"). An attacker who can move
// or rewrite files in the state folder (an agent steered through a filesystem or shell server)
// moves pins.db away so a rug-pulled tool is pinned anew as first use, or truncates, empties or
// re-chains audit.db so its record of what happened is gone and the log still "verifies". The
// anchor lives outside the state folder (SWITCHBOARD_ANCHOR_DIR here, a folder of its own).
// The files are moved by the test itself: the route an agent would use (server-filesystem's
// move_file through the gateway) is the protected-paths control's to block; one test shows the
// real server-filesystem doing the move when it is reached some other way.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { McpClient } from '../../src/client/mcpClient.js';
import { StreamableHttpClientTransport } from '../../src/transport/http/client/client.js';
import { StdioClientTransport } from '../../src/transport/stdio/client.js';
import { AUDIT_GENESIS, chainRecord } from '../../src/store/auditChain.js';
import { REPO_ROOT } from '../interop/fixtures/ourServerHarness.js';
import { MAIN, startGateway, writeConfig, type GatewayConfig, type RunningGateway } from '../interop/fixtures/gatewayHarness.js';

const rugPull = fileURLToPath(new URL('../fixtures/attacks/rugPullServer.ts', import.meta.url));
const run = promisify(execFile);
const text = (r: unknown): string => (r as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('');
const TIMEOUT = { timeout: 120_000 };

let anchorDir: string;
let env: Record<string, string>;

before(async () => {
  anchorDir = await mkdtemp(join(tmpdir(), 'sb-anchor-e2e-'));
  env = { SWITCHBOARD_ANCHOR_DIR: anchorDir };
});
after(async () => {
  await rm(anchorDir, { recursive: true, force: true });
});

/** A client of `gateway` (stateful, so list_changed arrives). */
async function connect(gateway: RunningGateway, onChanged: () => void = () => undefined): Promise<McpClient> {
  const client = new McpClient({ name: 'victim', version: '1' }, { era: 'stateful', on: { toolsListChanged: () => onChanged() } });
  await client.connect(new StreamableHttpClientTransport({ url: gateway.url, headers: { authorization: `Bearer ${gateway.token}` } }));
  return client;
}

/** Moves a SQLite file and its WAL/SHM companions out of the state folder (the attacker's move_file). */
function moveAway(stateDir: string, name: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(join(stateDir, name + suffix))) renameSync(join(stateDir, name + suffix), join(to, name + suffix));
}

/** `switchboard <args>` with the test's anchor folder; resolves with its exit code and output (a failure is not thrown). */
async function cli(config: GatewayConfig, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, ...args, '--config', config.file], { cwd: config.dir, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The rug-pull server's entry; `variant` (WEATHER_VARIANT) `celsius` serves a changed get_weather from the start (a change only the pins see). */
const weather = (variant?: string): Record<string, unknown> => ({ command: process.execPath, args: ['--import', 'tsx', rugPull], cwd: REPO_ROOT, ...(variant !== undefined ? { env: { WEATHER_VARIANT: variant } } : {}) });

/** Rewrites `config` with the rug-pull server serving `variant` (the server updated between two runs). */
function serve(config: GatewayConfig, variant: string): void {
  writeFileSync(config.file, JSON.stringify({ mcpServers: { weather: weather(variant) }, switchboard: {} }));
}

/** Starts the gateway of `config` expecting it to refuse (one that starts is stopped, and fails the test); resolves with what it said. */
async function refusedStart(config: GatewayConfig): Promise<string> {
  let started: RunningGateway;
  try {
    started = await startGateway(config, [], [], env);
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    assert.match(said, /exited with code 1 before listening/);
    return said;
  }
  await started.stop();
  assert.fail(`the gateway started:\n${started.stderr()}`);
}

describe('e2e: state that cannot be reset by moving files (pins)', () => {
  let config: GatewayConfig;
  before(async () => {
    // The same launch in both runs (env names are part of a stdio server's identity); only the value changes.
    config = await writeConfig({ weather: weather('plain') });
  });
  after(async () => {
    await config.remove();
  });

  it('state reset: pins.db moved away — a rug-pulled tool is not pinned anew as first use at the next start', TIMEOUT, async () => {
    // First run: the honest tools are pinned; the rug pull is quarantined.
    const first = await startGateway(config, [], [], env);
    try {
      let changed: () => void = () => undefined;
      const client = await connect(first, () => changed());
      assert.deepEqual((await client.listTools({ fresh: false })).map((t) => t.name).sort(), ['add', 'get_weather', 'stats']);
      const pulled = new Promise<void>((resolve) => (changed = resolve));
      await client.callTool('add', { a: 1, b: 2 });
      await pulled;
      const refused = await client.callTool('get_weather', { city: 'Oslo', notes: 'x' });
      assert.match(text(refused), /Denied by trust\.pins/);
      await client.close();
    } finally {
      await first.stop();
    }
    // The attack: pins.db leaves the state folder; the server now serves its changed tool from the start.
    moveAway(join(config.dir, '.switchboard'), 'pins.db', join(config.dir, 'moved'));
    serve(config, 'celsius');
    const said = await refusedStart(config);
    assert.match(said, /The pin store file:.*pins\.db does not match its anchor .*the pins of stdio:sha256:[0-9a-f]+(?:\+env:hmac-sha256:[0-9a-f]+)? are missing \(the store was moved away, replaced or emptied\).*not pinned anew as first use/);
    assert.match(said, /switchboard anchor reset --config /);
    assert.match(said, /The gateway did not start/);
    const pinned = new Database(join(config.dir, '.switchboard', 'pins.db'), { readonly: true });
    try {
      assert.equal((pinned.prepare('SELECT count(*) AS n FROM servers').get() as { n: number }).n, 0, 'nothing was pinned as first use');
    } finally {
      pinned.close();
    }
    assert.equal((await cli(config, ['anchor', 'status'])).code, 1, 'anchor status reports it too');
  });

  it('state reset: pins.db put back — the gateway starts and the quarantine still holds (the move is not a rollback)', TIMEOUT, async () => {
    rmSync(join(config.dir, '.switchboard', 'pins.db'), { force: true });
    for (const suffix of ['-wal', '-shm']) rmSync(join(config.dir, '.switchboard', `pins.db${suffix}`), { force: true });
    moveAway(join(config.dir, 'moved'), 'pins.db', join(config.dir, '.switchboard'));
    const gateway = await startGateway(config, [], [], env);
    try {
      const client = await connect(gateway);
      const refused = await client.callTool('get_weather', { city: 'Oslo' });
      assert.equal(refused.isError, true, text(refused));
      assert.match(text(refused), /Denied by trust\.pins/);
      assert.deepEqual(JSON.parse(text(await client.callTool('stats', {}))), { weatherCalls: 0, pulled: false }, 'the changed tool never reached the server');
      await client.close();
    } finally {
      await gateway.stop();
    }
  });
});

describe('e2e: the audit log\'s tail is anchored', () => {
  let config: GatewayConfig;
  let stateDir: string;
  let backup: string;
  /** Records after the first run. */
  let records = 0;

  /** Puts the intact log back (the same file at the same path: it matches its anchor again). */
  function restore(): void {
    for (const suffix of ['-wal', '-shm']) rmSync(join(stateDir, `audit.db${suffix}`), { force: true });
    copyFileSync(backup, join(stateDir, 'audit.db'));
  }

  function rows(): { seq: number; line: string; hash: string }[] {
    const db = new Database(join(stateDir, 'audit.db'), { readonly: true });
    try {
      return db.prepare('SELECT seq, line, hash FROM audit ORDER BY seq').all() as { seq: number; line: string; hash: string }[];
    } finally {
      db.close();
    }
  }

  function edit(sql: (db: Database.Database) => void): void {
    const db = new Database(join(stateDir, 'audit.db'));
    try {
      sql(db);
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
  }

  before(async () => {
    config = await writeConfig({ weather: { command: process.execPath, args: ['--import', 'tsx', rugPull], cwd: REPO_ROOT } });
    stateDir = join(config.dir, '.switchboard');
    const gateway = await startGateway(config, [], [], env);
    try {
      const client = await connect(gateway);
      for (let i = 0; i < 5; i++) await client.callTool('add', { a: i, b: 1 });
      await client.close();
    } finally {
      await gateway.stop(); // the last checkpoint is written at the stop
    }
    edit(() => undefined); // the WAL folded into the file, so one file is the whole log
    records = rows().length;
    assert.ok(records >= 6, `records written: ${records}`);
    backup = join(config.dir, 'audit.db.backup');
    copyFileSync(join(stateDir, 'audit.db'), backup);
    const intact = await cli(config, ['audit', 'verify']);
    assert.equal(intact.code, 0, intact.stdout + intact.stderr);
    assert.match(intact.stdout, new RegExp(`anchored at record ${records} `));
  });
  after(async () => {
    await config.remove();
  });

  it('log tail truncation: deleting the last N audit rows is detected by audit verify', TIMEOUT, async () => {
    restore();
    edit((db) => db.prepare('DELETE FROM audit WHERE seq > ?').run(records - 3));
    const verify = await cli(config, ['audit', 'verify']);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, new RegExp(`record ${records}: anchor .*the log ends at record ${records - 3}, but the anchor says record ${records} existed: its tail was truncated`));
    assert.match(verify.stdout, /^TAMPERED: /m);
  });

  it('restart does not continue from a truncated head: the gateway refuses to start and appends nothing', TIMEOUT, async () => {
    restore();
    edit((db) => db.prepare('DELETE FROM audit WHERE seq > ?').run(records - 2));
    const said = await refusedStart(config);
    assert.match(said, /The audit log file:.*audit\.db does not match its anchor .*its tail was truncated.*does not continue a broken chain.*switchboard anchor reset --config /s);
    assert.equal(rows().length, records - 2, 'no record was chained onto the truncated head');
  });

  it('re-chaining detected: a log rewritten with fresh hashes (one record altered, every link recomputed) verifies as a chain but not against its anchor', TIMEOUT, async () => {
    restore();
    const original = rows();
    edit((db) => {
      db.prepare('DELETE FROM audit').run();
      const insert = db.prepare('INSERT INTO audit (seq, line, hash) VALUES (?, ?, ?)');
      let prev = AUDIT_GENESIS;
      for (const row of original) {
        const { seq: _s, prev: _p, argumentsDigest: _a, ...entry } = JSON.parse(row.line) as Record<string, unknown>;
        if (row.seq === 2) entry['outcome'] = 'denied'; // what the attacker wants the record to say
        const chained = chainRecord(entry as never, row.seq, prev);
        insert.run(chained.seq, chained.line, chained.hash);
        prev = chained.hash;
      }
    });
    const verify = await cli(config, ['audit', 'verify']);
    assert.equal(verify.code, 1);
    assert.doesNotMatch(verify.stdout, /the link to the previous record is broken|does not match its hash/, 'the chain itself is consistent: only the anchor tells');
    assert.match(verify.stdout, new RegExp(`record ${records}: anchor .*record ${records} has hash sha256:[0-9a-f]+, but the anchor says sha256:[0-9a-f]+: the log was re-chained or replaced`));
    assert.match(await refusedStart(config), /re-chained or replaced by another.*The gateway did not start/s);
  });

  it('emptying detected: an audit log with every row deleted is reported by audit verify, and the gateway refuses it', TIMEOUT, async () => {
    restore();
    edit((db) => db.prepare('DELETE FROM audit').run());
    const verify = await cli(config, ['audit', 'verify']);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, new RegExp(`the log is empty, but the anchor says record ${records} existed`));
    assert.match(verify.stdout, /^TAMPERED: 0 records/m);
    assert.match(await refusedStart(config), /the log is empty, but the anchor says record \d+ existed: it was emptied, or moved away/);
  });

  it('state reset: audit.db moved away — the next start refuses, verify reports it; an explicit anchor reset re-anchors and is recorded', TIMEOUT, async () => {
    restore();
    moveAway(stateDir, 'audit.db', join(config.dir, 'moved'));
    const said = await refusedStart(config);
    assert.match(said, /The audit log file:.*audit\.db does not match its anchor .*the log is empty, but the anchor says record \d+ existed: it was emptied, or moved away and a new one started/);
    assert.equal(rows().length, 0, 'the refused start wrote nothing');
    const verify = await cli(config, ['audit', 'verify']);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, /TAMPERED/);
    // The operator's explicit reset: the log records it, and the gateway starts again on the new chain.
    const reset = await cli(config, ['anchor', 'reset']);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /re-anchored in .*audit: record 1 /);
    const [record] = rows();
    assert.match(record?.line ?? '', /"kind":"anchor-reset"/);
    assert.match(record?.line ?? '', new RegExp(`the audit anchor said record ${records} `));
    const gateway = await startGateway(config, [], [], env);
    await gateway.stop();
    assert.equal((await cli(config, ['audit', 'verify'])).code, 0);
  });
});

describe('e2e: witness checkpoints', () => {
  it('log tail truncation below a witness\'s signed checkpoint: audit verify --checkpoint reports it even with the local anchor rewritten', TIMEOUT, async () => {
    const config = await writeConfig({ weather: { command: process.execPath, args: ['--import', 'tsx', rugPull], cwd: REPO_ROOT } });
    try {
      const gateway = await startGateway(config, [], [], env);
      try {
        const client = await connect(gateway);
        for (let i = 0; i < 3; i++) await client.callTool('add', { a: i, b: 1 });
        await client.close();
      } finally {
        await gateway.stop();
      }
      const exported = await cli(config, ['audit', 'checkpoint']);
      assert.equal(exported.code, 0, exported.stderr);
      const checkpoint = JSON.parse(exported.stdout) as { seq: number; hash: string; signature: string; key: { crv: string } };
      assert.equal(checkpoint.key.crv, 'Ed25519');
      const file = join(config.dir, 'witness.json');
      writeFileSync(file, exported.stdout);
      assert.equal((await cli(config, ['audit', 'verify', '--checkpoint', file])).code, 0);
      // The attacker truncates the tail and also re-anchors locally (say, with a shell server).
      const db = new Database(join(config.dir, '.switchboard', 'audit.db'));
      db.prepare('DELETE FROM audit WHERE seq > ?').run(checkpoint.seq - 1);
      db.close();
      assert.equal((await cli(config, ['anchor', 'reset'])).code, 0);
      const verify = await cli(config, ['audit', 'verify', '--checkpoint', file]);
      assert.equal(verify.code, 1);
      assert.match(verify.stdout, new RegExp(`checkpoint .*witness\\.json \\(signed .*\\): record ${checkpoint.seq} has hash sha256:[0-9a-f]+, but the anchor says`));
      // A forged checkpoint (the number changed) does not verify.
      writeFileSync(file, JSON.stringify({ ...checkpoint, seq: 1 }));
      assert.match((await cli(config, ['audit', 'verify', '--checkpoint', file])).stdout, /its signature does not verify/);
    } finally {
      await config.remove();
    }
  });

  it('state reset by the real server-filesystem: move_file takes pins.db out of the state folder (reached directly, not through the gateway) — the gateway refuses to pin anew', TIMEOUT, async () => {
    const config = await writeConfig({ weather: weather('plain') });
    try {
      const gateway = await startGateway(config, [], [], env);
      const client = await connect(gateway);
      await client.listTools({ fresh: false });
      await client.close();
      await gateway.stop();
      const fs = new McpClient({ name: 'agent', version: '1' });
      await fs.connect(new StdioClientTransport({ command: process.execPath, args: [join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js'), config.dir], stderr: 'ignore' }));
      try {
        mkdirSync(join(config.dir, 'moved'));
        for (const suffix of ['', '-wal', '-shm']) {
          if (!existsSync(join(config.dir, '.switchboard', `pins.db${suffix}`))) continue;
          const moved = await fs.callTool('move_file', { source: join(config.dir, '.switchboard', `pins.db${suffix}`), destination: join(config.dir, 'moved', `pins.db${suffix}`) });
          assert.notEqual(moved.isError, true, text(moved));
        }
      } finally {
        await fs.close();
      }
      assert.equal(existsSync(join(config.dir, '.switchboard', 'pins.db')), false, 'server-filesystem moved it');
      serve(config, 'celsius');
      assert.match(await refusedStart(config), /the pins of stdio:sha256:[0-9a-f]+(?:\+env:hmac-sha256:[0-9a-f]+)? are missing/);
    } finally {
      await config.remove();
    }
  });
});
