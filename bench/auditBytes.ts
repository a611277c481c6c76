/**
 * `npm run bench:audit-bytes`: what one audit record costs on disk. Drives `--records N` tool
 * calls (default 20,000; `--concurrency C` at once, default 32) through the gateway `switchboard
 * gateway` runs ({@link openGateway} on a config with defaults only: the default chain, audit
 * durability `sync`, a named static token as `switchboard gateway` has), in this process, over
 * its HTTP front door's `fetch` entry (no socket), to one in-memory `echo` server; the audit
 * interceptor writes the records into a fresh `audit.db`. Then, with the gateway closed, the
 * WAL is checkpointed and the file vacuumed, and it reports:
 *
 * - bytes per record: the file after the checkpoint, and after `VACUUM`;
 * - the pages of each b-tree (table, indexes) from SQLite's `dbstat` table: size, payload, unused;
 * - the average bytes of each stored column, and of each member of the canonical line (the text
 *   that is hashed), with `"name":` and its comma, as read back through the log.
 *
 * `--wire session` uses 2025-11-25 sessions (each record then has a `session`); default
 * `stateless` (2026-07-28). `--postgres [URL]` writes to the PostgreSQL log instead (`--store`'s;
 * default URL as the tests': `SWITCHBOARD_TEST_POSTGRES`), in a schema of its own, dropped at the
 * end, and reports the table's and its indexes' bytes per row after `VACUUM` and each column's
 * average `pg_column_size`. `--json` prints the report as JSON. Run on two trees (`git worktree
 * add`) to compare formats: it only uses what every version has (the logs' `read`).
 *
 * @module
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tokenDigest } from '../src/auth/resource/staticTokens.js';
import { auditFile, auditStoreOptions } from '../src/cli/auditFiles.js';
import { gatewayConsent } from '../src/cli/gatewayConsent.js';
import { loadConfig, openPins } from '../src/cli/hostSetup.js';
import { openGateway } from '../src/host/openGateway.js';
import { PersistentTaintStore } from '../src/host/policy/taintPersistence.js';
import { McpServer } from '../src/server/mcpServer.js';
import { PgAuditLog } from '../src/store/postgres/pgAuditLog.js';
import { PgDatabase } from '../src/store/postgres/pgDatabase.js';
import { SqliteAuditLog } from '../src/store/sqliteAudit.js';
import { SqliteTaintSnapshot } from '../src/store/sqliteTaintStore.js';
import { canonicalize } from '../src/util/canonicalJson.js';
import { silentLogger } from '../src/util/logger.js';
import { memoryServers } from '../test/unit/host/support/memoryServers.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const RECORDS = Number(option('--records', '20000'));
const CONCURRENCY = Number(option('--concurrency', '32'));
const WIRE = option('--wire', 'stateless');
const TOKEN = 'bench-token-0123456789abcdefghijklmnopqrstuvwxyz';
const ORIGIN = 'http://127.0.0.1';
const POSTGRES = argv.includes('--postgres') ? (argv[argv.indexOf('--postgres') + 1]?.startsWith('postgres') === true ? (argv[argv.indexOf('--postgres') + 1] as string) : (process.env['SWITCHBOARD_TEST_POSTGRES'] ?? `postgres://${userInfo().username}@127.0.0.1:5432/switchboard_test`)) : undefined;
const SCHEMA = `audit_bytes_${randomBytes(4).toString('hex')}`;

const dir = mkdtempSync(join(tmpdir(), 'audit-bytes-'));
const configFile = join(dir, 'switchboard.json');
writeFileSync(configFile, JSON.stringify({ mcpServers: { echo: { command: 'memory' } }, switchboard: { stateDir: join(dir, 'state') } }));
const config = await loadConfig(configFile);
const file = auditFile(config.stateDir);

function echoServer(): McpServer {
  const server = new McpServer({ name: 'floor', version: '0.0.0' });
  server.tool('echo', { description: 'Echoes the message back.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }, (args: Record<string, unknown>) => String(args['message']));
  return server;
}

/** Runs the calls through the gateway and closes it; returns the log's commits. */
async function drive(): Promise<number> {
  const audit = POSTGRES !== undefined ? new PgAuditLog(await PgDatabase.open(POSTGRES, { schema: SCHEMA })) : SqliteAuditLog.open(file, auditStoreOptions(config));
  const pins = await openPins(config, silentLogger, () => config, 'x');
  const taint = new PersistentTaintStore(SqliteTaintSnapshot.open(join(config.stateDir, 'taint.db')), { maxKeys: config.policy.maxTrackedSessions });
  const opened = await openGateway(config, {
    logger: silentLogger,
    transport: memoryServers(() => echoServer()).factory,
    admit: (c) => Promise.resolve(c.servers),
    audit,
    pins,
    taint: { store: taint, close: () => taint.close() },
    consent: async (log, live) => gatewayConsent({ config, current: live, interactive: false, audit: log, logger: silentLogger }),
  });
  await opened.started;
  const door = opened.frontDoor({ path: '/mcp', logger: silentLogger, auth: { tokens: [{ name: 'default', sha256: tokenDigest(TOKEN), scopes: [] }] } });
  const post = async (body: unknown, headers: Record<string, string>): Promise<Response> => {
    const answer = await door.fetch(
      new Request(`${ORIGIN}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}`, ...headers }, body: JSON.stringify(body) }),
    );
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`HTTP ${answer.status}: ${await answer.text()}`);
    return answer;
  };
  /** A session per lane (2025-11-25): its id. */
  const session = async (): Promise<string> => {
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } }, {});
    const id = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }).then((r) => r.text());
    return id;
  };
  let left = RECORDS;
  let id = 1;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const headers: Record<string, string> =
        WIRE === 'session' ? { 'mcp-session-id': await session(), 'mcp-protocol-version': '2025-11-25' } : { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
      const meta = WIRE === 'session' ? {} : { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };
      while (left-- > 0) {
        const text = await (await post({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' }, ...meta } }, headers)).text();
        if (!text.includes('hello')) throw new Error(`unexpected answer: ${text}`);
      }
    }),
  );
  const commits = audit.commits;
  await opened.close();
  await audit.close();
  await pins.store.close?.();
  return commits;
}

const commits = await drive();

// What was written, as the log reads it back (the canonical line is what the chain hashes).
const pgDb = POSTGRES !== undefined ? await PgDatabase.open(POSTGRES, { schema: SCHEMA }) : undefined;
const log = pgDb !== undefined ? new PgAuditLog(pgDb) : SqliteAuditLog.open(file);
const members = new Map<string, number>();
let lineBytes = 0;
let records = 0;
const decisionTexts = new Map<string, number>();
for (let from = 1; ; ) {
  const page = await log.read({ from, limit: 5000 });
  if (page.length === 0) break;
  for (const record of page) {
    const { hash: _hash, ...stored } = record;
    records++;
    const entries = Object.entries(stored);
    lineBytes += Buffer.byteLength(canonicalize(stored));
    for (const [key, value] of entries) {
      const bytes = Buffer.byteLength(`"${key}":${canonicalize(value)},`);
      members.set(key, (members.get(key) ?? 0) + bytes);
    }
    const decisions = canonicalize(stored.decisions);
    decisionTexts.set(decisions, (decisionTexts.get(decisions) ?? 0) + 1);
  }
  from = (page[page.length - 1]?.seq ?? 0) + 1;
}
const verified = await log.verify();
await log.close();
if (!verified.ok || records < RECORDS) throw new Error(`the log does not verify or misses records: ${JSON.stringify({ records, ok: verified.ok, problems: verified.problems.slice(0, 3) })}`);
const per = (n: number): number => Math.round((n / records) * 10) / 10;
const canonicalLine = { bytes: per(lineBytes), members: Object.fromEntries([...members].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)])) };
const decisions = { distinctTexts: decisionTexts.size, commonest: [...decisionTexts].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([text, n]) => ({ text, share: Math.round((n / records) * 1000) / 1000 })) };
const print = (report: object): void => console.log(argv.includes('--json') ? JSON.stringify(report) : JSON.stringify(report, null, 2));

if (pgDb !== undefined) {
  // The table and its indexes after VACUUM (PostgreSQL pages; the primary key on seq is the only index).
  await pgDb.query('vacuuming', 'VACUUM audit');
  const columns = (await pgDb.query<{ name: string }>('reading columns', "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'audit' ORDER BY ordinal_position", [SCHEMA])).map((c) => c.name);
  const [columnBytes] = await pgDb.query<Record<string, string | null>>('measuring', `SELECT ${columns.map((c) => `avg(pg_column_size(${c})) AS "${c}"`).join(', ')} FROM audit`);
  const [sizes] = await pgDb.query<{ heap: string; indexes: string; total: string; rows: string }>('measuring', "SELECT pg_relation_size('audit') AS heap, pg_indexes_size('audit') AS indexes, pg_total_relation_size('audit') AS total, (SELECT count(*) FROM audit) AS rows");
  await pgDb.query('dropping the schema', `DROP SCHEMA ${SCHEMA} CASCADE`);
  await pgDb.close();
  rmSync(dir, { recursive: true, force: true });
  print({
    store: 'postgres',
    records,
    rows: Number(sizes?.rows),
    wire: WIRE,
    concurrency: CONCURRENCY,
    recordsPerCommit: Math.round((records / commits) * 10) / 10,
    bytesPerRecord: { table: per(Number(sizes?.heap)), indexes: per(Number(sizes?.indexes)), total: per(Number(sizes?.total)) },
    columnBytes: Object.fromEntries(Object.entries(columnBytes ?? {}).map(([k, v]) => [k, v === null ? null : Math.round(Number(v) * 10) / 10])),
    canonicalLine,
    decisions,
  });
  process.exit(0);
}

// On disk: checkpointed (the WAL folded in), then vacuumed; each b-tree's pages from dbstat.
const db = new Database(file);
db.pragma('wal_checkpoint(TRUNCATE)');
const checkpointed = statSync(file).size;
const columns = (db.prepare('PRAGMA table_info(audit)').all() as { name: string }[]).map((c) => c.name);
const columnBytes = db.prepare(`SELECT ${columns.map((c) => `avg(length(CAST(${c} AS BLOB))) AS "${c}"`).join(', ')} FROM audit`).get() as Record<string, number | null>;
db.exec('VACUUM');
db.pragma('wal_checkpoint(TRUNCATE)');
const vacuumed = statSync(file).size;
const trees = db.prepare('SELECT name, count(*) AS pages, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as { name: string; pages: number; bytes: number; payload: number; unused: number }[];
const auditRows = (db.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n;
db.close();
rmSync(dir, { recursive: true, force: true });

print({
  store: 'sqlite',
  records,
  rows: auditRows,
  wire: WIRE,
  concurrency: CONCURRENCY,
  recordsPerCommit: Math.round((records / commits) * 10) / 10,
  bytesPerRecord: { checkpointed: per(checkpointed), vacuumed: per(vacuumed) },
  btrees: trees.map((t) => ({ name: t.name, pages: t.pages, bytesPerRecord: per(t.bytes), payloadPerRecord: per(t.payload), unusedPerRecord: per(t.unused) })),
  columnBytes: Object.fromEntries(Object.entries(columnBytes).map(([k, v]) => [k, v === null ? null : Math.round(v * 10) / 10])),
  canonicalLine,
  decisions,
});
