/**
 * The gateway's audit retention (`switchboard.audit.retention`): the archiver of
 * `store/auditRetention.ts` on the gateway's log, SQLite (its own connection to the file) or
 * PostgreSQL (the shared log), named as its anchor names it (`stateAnchors.ts`).
 *
 * @module
 */
import type { HostConfig } from '../host/configTypes.js';
import type { ArchivableLog } from '../store/auditArchive.js';
import { AuditRetention } from '../store/auditRetention.js';
import { AuditTable } from '../store/sqliteAuditTable.js';
import type { Logger } from '../util/logger.js';
import { auditFile } from './auditFiles.js';
import { openAnchors, postgresStoreName, stateStoreName } from './stateAnchors.js';

/**
 * Starts the retention timer of `config`'s audit log (`shared`: the PostgreSQL log at
 * `store`, when the log is there); undefined when the config keeps everything live.
 */
export function startAuditRetention(config: Pick<HostConfig, 'stateDir' | 'auditRetention'>, logger: Logger, shared?: { readonly log: ArchivableLog; readonly store: string }): { run(): Promise<unknown>; stop(): Promise<void> } | undefined {
  const policy = config.auditRetention;
  if (policy === undefined) return undefined;
  const table = shared === undefined ? AuditTable.open(auditFile(config.stateDir)) : undefined;
  const log = shared?.log ?? (table as AuditTable);
  const name = shared !== undefined ? postgresStoreName(shared.store) : stateStoreName(config.stateDir, 'audit.db');
  const retention = new AuditRetention(log, openAnchors(), name, policy, logger).start();
  const bounds = [policy.keepDays !== undefined ? `${policy.keepDays} day${policy.keepDays === 1 ? '' : 's'}` : undefined, policy.keepGB !== undefined ? `${policy.keepGB} GB` : undefined].filter((b) => b !== undefined).join(' and ');
  logger.info(`audit retention: keeping ${bounds} live, archiving the rest to ${policy.archiveDir} (every ${policy.intervalMinutes ?? 60} min)`);
  return {
    run: () => retention.run(),
    stop: async () => {
      await retention.stop();
      table?.close();
    },
  };
}
