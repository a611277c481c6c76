// Runs the audit-log contract against every implementation: SQLite (two connections on one
// file) and PostgreSQL (two instances on one schema).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import Database from 'better-sqlite3';
import { PgAuditLog } from '../../../src/store/postgres/pgAuditLog.js';
import { SqliteAuditLog } from '../../../src/store/sqliteAudit.js';
import { auditLogContract } from './auditLog.contract.js';
import { freshSchema, openTestPostgres } from './backends.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-audit-contract-'));
const logs: { close(): Promise<void> }[] = [];
after(async () => {
  for (const log of logs) await log.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;

auditLogContract('SQLite', async () => {
  const file = join(dir, `audit-${n++}.db`);
  const open = (): SqliteAuditLog => {
    const log = SqliteAuditLog.open(file);
    logs.push(log);
    return log;
  };
  const raw = (sql: string, ...values: unknown[]): void => {
    const db = new Database(file);
    db.prepare(sql).run(...values);
    db.close();
  };
  return {
    log: open(),
    peer: async () => open(),
    editLine: async (seq, line) => raw('UPDATE audit SET line = ? WHERE seq = ?', line, seq),
    deleteRecord: async (seq) => raw('DELETE FROM audit WHERE seq = ?', seq),
  };
});

auditLogContract('PostgreSQL', async () => {
  const schema = freshSchema();
  const db = await openTestPostgres({ schema });
  const open = async (): Promise<PgAuditLog> => {
    const log = new PgAuditLog(await openTestPostgres({ schema }));
    logs.push(log);
    return log;
  };
  const log = new PgAuditLog(db);
  logs.push(log);
  return {
    log,
    peer: open,
    editLine: async (seq, line) => void (await db.query('editing a record', 'UPDATE audit SET line = $1 WHERE seq = $2', [line, seq])),
    deleteRecord: async (seq) => void (await db.query('deleting a record', 'DELETE FROM audit WHERE seq = $1', [seq])),
  };
});
