/**
 * The options of the SQLite audit log (`SqliteAuditLog.open` in `sqliteAudit.ts`).
 *
 * @module
 */
import type { AuditDurability } from '../host/audit.js';
import type { AuditProcess } from './auditPending.js';

/** Options of `SqliteAuditLog.open`. */
export interface SqliteAuditOptions {
  /** Retry interval after a failed write, in ms. Default 1000. */
  readonly retryMs?: number;
  /**
   * Most bytes the database may grow to. Reaching it is handled as a full disk: the log says
   * "disk full" and the gateway refuses requests until there is room. Default: no limit.
   */
  readonly maxBytes?: number;
  /**
   * `sync` (default): an append resolves after the sync that makes its record survive a power
   * loss. `batch`: once its record is committed; it survives the process being killed, the sync
   * follows (see the module comment).
   */
  readonly durability?: AuditDurability;
  /**
   * `batch` only: the least time, in ms, from the start of one sync of the WAL to the start of
   * the next, so that a burst of commits shares one sync (default {@link DEFAULT_BATCH_SYNC_MS});
   * on a file, also the least time between two commits of answered rows from the pending file.
   * It bounds what a power loss can take: the records answered in one interval and one sync.
   * 0 commits at the end of every turn and syncs after every commit (one sync in flight at a time).
   */
  readonly syncIntervalMs?: number;
  /**
   * The process this log runs in (`switchboard`'s commands pass theirs). With it, `batch` on a
   * file answers from the pending file and commits after the answers, and every open commits
   * what dead processes left in theirs (see `auditPending.ts`). Without it, `batch` commits
   * each group before its answers and other processes' pending files are left alone.
   */
  readonly process?: AuditProcess;
  /** What frees space, said with "disk full" (the audit retention's setting: `auditRetention.ts` `retentionHint`). */
  readonly fullHint?: string;
}

/** {@link SqliteAuditOptions.syncIntervalMs}'s default. */
export const DEFAULT_BATCH_SYNC_MS = 10;
