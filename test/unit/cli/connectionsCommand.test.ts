// `switchboard connections list | revoke` as a real process, over the store the gateway opens
// (`openConnectionStore`): SQLite in the state folder, and PostgreSQL with --store. Judged by
// the process's output (never a token in it) and by what is left in the store.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openConnectionStore } from '../../../src/cli/connectionStores.js';
import type { Connection, ConnectionStore } from '../../../src/host/connections.js';
import { cli } from './cliProcess.js';

const T = { timeout: 60_000 };
const GITHUB = 'https://mcp.github.example/mcp';
const DOCS = 'https://docs.example/mcp';
/** An issuer nothing listens at (loopback, so plain http is allowed): the revocation there fails at once, the local one stands. */
const UNREACHABLE_AS = 'http://127.0.0.1:9';
const POSTGRES_URL = process.env['SWITCHBOARD_TEST_POSTGRES'] ?? `postgres://${userInfo().username}@127.0.0.1:5432/switchboard_test`;

function conn(principal: string, server: string, serverId: string, createdAt: number, tenant?: string): Connection {
  const tag = randomBytes(6).toString('hex');
  return {
    principal,
    server,
    serverId,
    ...(tenant !== undefined ? { tenant } : {}),
    mode: serverId === 'docs' ? 'token-exchange' : 'per-user',
    tokens: { accessToken: `AT-${tag}`, tokenType: 'Bearer', refreshToken: `RT-${tag}`, grantedScope: 'repo', requestedScopes: ['repo'], issuer: UNREACHABLE_AS, resource: server },
    createdAt,
    updatedAt: createdAt,
  };
}

const seeded = (): Connection[] => [conn('alice', GITHUB, 'github', 1_000), conn('alice', DOCS, 'docs', 2_000), conn('bob', GITHUB, 'github', 3_000, 'acme')];

/** No token of `conns` in `text`. */
function noTokens(text: string, conns: readonly Connection[]): void {
  for (const c of conns) {
    assert.ok(!text.includes(c.tokens.accessToken), 'an access token was printed');
    assert.ok(!text.includes(c.tokens.refreshToken as string), 'a refresh token was printed');
  }
}

for (const backend of ['SQLite', 'PostgreSQL'] as const) {
  describe(`cli: switchboard connections (${backend})`, () => {
    let dir: string;
    let config: string;
    let store: ConnectionStore;
    let conns: Connection[];
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const storeArgs = backend === 'PostgreSQL' ? ['--store', `${POSTGRES_URL}?schema=${schema}`] : [];
    const run = (...args: string[]) => cli(['connections', ...args, '--config', config, ...storeArgs]);

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'switchboard-connections-cli-'));
      config = join(dir, 'switchboard.json');
      await writeFile(config, JSON.stringify({ mcpServers: { github: { url: GITHUB }, docs: { url: DOCS }, local: { command: 'node', args: ['x.js'] } }, switchboard: { stateDir: '.switchboard' } }));
      // The gateway's side: the same factory, the same state folder (the key file is created here).
      store = (await openConnectionStore({ stateDir: join(dir, '.switchboard'), ...(backend === 'PostgreSQL' ? { store: `${POSTGRES_URL}?schema=${schema}` } : {}), environment: {} })).store;
      conns = seeded();
      for (const c of conns) await store.put(c);
    });
    after(async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
      if (backend === 'PostgreSQL') {
        const admin = new pg.Client({ connectionString: POSTGRES_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      }
    });

    it('list-never-prints-tokens: list shows who is connected where (text and JSON), never a token', T, async () => {
      const text = await run('list');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^3 connections:\n/);
      assert.match(text.stdout, /alice @ https:\/\/mcp\.github\.example\/mcp +github, per-user, scopes repo, since 1970-01-01T00:00:01\.000Z, refreshable/);
      assert.match(text.stdout, /alice @ https:\/\/docs\.example\/mcp +docs, token-exchange/);
      noTokens(text.stdout + text.stderr, conns);
      const json = await run('list', '--json', '--server', 'github');
      assert.equal(json.code, 0, json.stderr);
      const listed = JSON.parse(json.stdout) as { principal: string; server: string }[];
      assert.deepEqual(listed.map((c) => c.principal), ['alice', 'bob']);
      noTokens(json.stdout + json.stderr, conns);
      const one = await run('list', '--principal', 'bob');
      assert.match(one.stdout, /^1 connection:\n {2}bob @ /);
    });

    it('list shows the tenant a connection was made under and filters by it (--tenant); revoke refuses --tenant', T, async () => {
      const acme = await run('list', '--tenant', 'acme');
      assert.equal(acme.code, 0, acme.stderr);
      assert.match(acme.stdout, /^1 connection:\n {2}bob @ https:\/\/mcp\.github\.example\/mcp +github, per-user, tenant acme, /);
      assert.deepEqual((JSON.parse((await run('list', '--tenant', 'acme', '--json')).stdout) as { tenant?: string }[]).map((c) => c.tenant), ['acme']);
      assert.equal((await run('list', '--tenant', 'other')).stdout, 'No connections.\n');
      const revoke = await run('revoke', '--principal', 'bob', '--tenant', 'acme');
      assert.equal(revoke.code, 2);
      assert.match(revoke.stderr, /--tenant filters list only/);
      assert.equal((await store.list()).length, 3);
    });

    it('revoke needs a principal or a server; a local server or an unknown name is refused (exit 2)', T, async () => {
      const none = await run('revoke');
      assert.equal(none.code, 2);
      assert.match(none.stderr, /revoke needs --principal, --server or both/);
      const local = await run('revoke', '--server', 'local');
      assert.equal(local.code, 2);
      assert.match(local.stderr, /local \(stdio\) server/);
      const unknown = await run('list', '--server', 'nope');
      assert.equal(unknown.code, 2);
      assert.equal((await store.list()).length, 3);
    });

    it('revokes one user at one server, then a whole server, then a user (the store is left without them)', T, async () => {
      const pair = await run('revoke', '--principal', 'alice', '--server', DOCS);
      assert.equal(pair.code, 0, pair.stderr);
      const [head, line, ...rest] = pair.stdout.split('\n');
      assert.equal(head, `Revoked 1 connection of alice at ${DOCS}.`);
      assert.match(line ?? '', new RegExp(`^  alice @ ${DOCS.replace(/[.]/g, '\\.')} \\(repo\\): NOT revoked at the authorization server: `));
      assert.deepEqual(rest, ['']);
      const server = await run('revoke', '--server', 'github', '--json');
      const answer = JSON.parse(server.stdout) as { revoked: number; connections: { principal: string; serverId: string; asRevoked: unknown; reason: string }[] };
      assert.equal(answer.revoked, 2);
      assert.deepEqual(answer.connections.map((c) => [c.principal, c.serverId, c.asRevoked]), [['alice', 'github', false], ['bob', 'github', false]]);
      assert.match(answer.connections[0]?.reason ?? '', /127\.0\.0\.1:9/);
      noTokens(pair.stdout + server.stdout, conns);
      const user = await run('revoke', '--principal', 'alice');
      assert.equal(user.stdout, 'Revoked 0 connections of alice.\n');
      assert.deepEqual(await store.list(), []);
      assert.equal(await store.get({ principal: 'bob', server: GITHUB }), undefined);
      assert.equal((await run('list')).stdout, 'No connections.\n');
    });
  });
}
