/**
 * Where the gateway's audit log lives and how it is opened (`<stateDir>/audit.db`, this
 * process for the batch pending files), and one human line per record: shared by `gateway`,
 * `audit`, `pins` and `policy`.
 *
 * @module
 */
import { join } from 'node:path';
import { auditSubject, type AuditRecord } from '../host/audit.js';
import type { HostConfig } from '../host/configTypes.js';
import type { AuditProcess, SqliteAuditOptions } from '../store/sqliteAudit.js';
import { retentionHint } from '../store/auditRetention.js';

/** The {@link SqliteAuditLog} options of a config's `switchboard.audit`. */
export function auditStoreOptions(config: Pick<HostConfig, 'auditDurability' | 'auditSyncIntervalMs' | 'auditRetention'>): SqliteAuditOptions {
  // A full disk's refusal says which retention setting frees space.
  return { durability: config.auditDurability, process: THIS_PROCESS, fullHint: retentionHint(config.auditRetention), ...(config.auditSyncIntervalMs !== undefined ? { syncIntervalMs: config.auditSyncIntervalMs } : {}) };
}

/**
 * This process, as the audit log's pending files need it (`batch`: each open also commits what
 * a killed gateway left in its file). Signal 0 tells whether another pid runs: `EPERM` means it
 * exists but is not ours to signal.
 */
export const THIS_PROCESS: AuditProcess = {
  pid: process.pid,
  isRunning(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as { code?: unknown }).code === 'EPERM';
    }
  },
};

/** The audit database of a state folder. */
export function auditFile(stateDir: string): string {
  return join(stateDir, 'audit.db');
}

/** One human line of a record. */
export function formatAuditRecord(r: AuditRecord): string {
  const decided = r.decisions.length > 0 ? ` [${r.decisions.map((d) => `${d.interceptor}:${d.outcome}`).join(', ')}]` : '';
  const error = r.error !== undefined ? ` (${r.error})` : '';
  return `#${r.seq} ${r.time} ${auditSubject(r)} -> ${r.outcome}${error} ${r.latencyMs} ms${decided}`;
}
