/**
 * The audit log's anchor (see `anchorFile.ts`): a keyed checkpoint of the chain's head (record
 * number, hash, time), written by the gateway off the request path ({@link AuditCheckpointer}:
 * at most once a second while records arrive, after they are synced to disk, and once more
 * at close) and kept apart from the log.
 *
 * The anchored record must still be in the log with the anchored hash. A log truncated below
 * it (its tail deleted), emptied, moved away (a new, empty one in its place), or re-chained
 * (records rewritten with fresh hashes) fails {@link auditAnchorProblem}: the gateway does not
 * start on it (it would continue the chain from a truncated head), and `audit verify` reports
 * it. What the anchor cannot see: records written after the last checkpoint and removed before
 * the next (at most about a second of a running gateway's records; none after a clean stop).
 *
 * @module
 */
import type { AuditReader, AuditRecord } from '../../host/audit.js';
import { AUDIT_GENESIS } from '../auditChain.js';
import { AnchorError, resetHint, type AnchorFolder } from './anchorFile.js';

/** The audit log's checkpoint body: its head when written. */
export interface AuditCheckpoint {
  readonly seq: number;
  readonly hash: string;
  /** When it was taken (ISO 8601, UTC). */
  readonly time: string;
}

/** The head of `reader` (record 0 and the genesis hash when empty). */
export async function auditHead(reader: Pick<AuditReader, 'tail'>, now: () => number = Date.now): Promise<AuditCheckpoint> {
  const [last] = await reader.tail(1);
  return { seq: last?.seq ?? 0, hash: last?.hash ?? AUDIT_GENESIS, time: new Date(now()).toISOString() };
}

/** What is wrong with `reader` against the checkpoint `anchor`: a sentence, or undefined when the anchored record is there. */
export async function auditAnchorProblem(reader: Pick<AuditReader, 'read' | 'tail'>, anchor: Pick<AuditCheckpoint, 'seq' | 'hash'>): Promise<string | undefined> {
  if (anchor.seq === 0) return undefined;
  const [record] = (await reader.read({ from: anchor.seq, limit: 1 })) as (AuditRecord | undefined)[];
  if (record !== undefined && record.seq === anchor.seq) {
    return record.hash === anchor.hash ? undefined : `record ${anchor.seq} has hash ${record.hash}, but the anchor says ${anchor.hash}: the log was re-chained or replaced by another`;
  }
  const head = await auditHead(reader);
  return head.seq === 0
    ? `the log is empty, but the anchor says record ${anchor.seq} existed: it was emptied, or moved away and a new one started`
    : `the log ends at record ${head.seq}, but the anchor says record ${anchor.seq} existed: its tail was truncated (or the log replaced by an older copy)`;
}

/**
 * Checks `reader` against its anchor in `folder` (`name` names the log) before a writer
 * continues it; without an anchor yet, anchors its head. Resolves with the head.
 *
 * @throws AnchorError when the log does not hold the anchored record (see the module comment).
 */
export async function checkAuditAnchor(reader: Pick<AuditReader, 'read' | 'tail'>, folder: AnchorFolder, name: string, options: { readonly config?: string; readonly now?: () => number } = {}): Promise<AuditCheckpoint> {
  const anchor = folder.read<AuditCheckpoint>('audit', name);
  if (anchor !== undefined) {
    const problem = await auditAnchorProblem(reader, anchor);
    if (problem !== undefined) {
      throw new AnchorError(`The audit log ${name} does not match its anchor (${folder.fileOf('audit', name)}, checkpoint of ${anchor.time}): ${problem}. The gateway does not continue a broken chain. ${resetHint(options.config)}`);
    }
  }
  const head = await auditHead(reader, options.now);
  if (anchor === undefined || head.seq > anchor.seq) folder.write<AuditCheckpoint>('audit', name, head);
  return head;
}

/** The log as the checkpointer reads it: the head, and (SQLite) a wait until what was committed is on disk. */
export type CheckpointedLog = Pick<AuditReader, 'read' | 'tail'> & { synced?(): Promise<void> };

/**
 * Writes the log's head to its anchor every `intervalMs` (default 1000) while it grows, off the
 * request path, after the records are synced; {@link stop} writes a last one. A head that no
 * longer holds the last anchored record (the log was cut while running) is reported to
 * `onProblem` and the anchor is not moved past it.
 */
export class AuditCheckpointer {
  readonly #log: CheckpointedLog;
  readonly #folder: AnchorFolder;
  readonly #name: string;
  readonly #onProblem: (problem: string) => void;
  readonly #now: () => number;
  #last: AuditCheckpoint | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  #broken = false;

  constructor(log: CheckpointedLog, folder: AnchorFolder, name: string, options: { readonly intervalMs?: number; readonly onProblem?: (problem: string) => void; readonly now?: () => number; readonly from?: AuditCheckpoint } = {}) {
    this.#log = log;
    this.#folder = folder;
    this.#name = name;
    this.#onProblem = options.onProblem ?? (() => undefined);
    this.#now = options.now ?? Date.now;
    this.#last = options.from;
    this.#timer = setInterval(() => void this.checkpoint(), options.intervalMs ?? 1000);
    this.#timer.unref?.();
  }

  /** Checkpoints the head now (unless one is being written, or the log was found cut). */
  checkpoint(): Promise<void> {
    this.#running ??= this.#write().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #write(): Promise<void> {
    if (this.#broken) return;
    try {
      const head = await auditHead(this.#log, this.#now);
      const last = this.#last;
      if (last !== undefined && head.seq <= last.seq) {
        if (head.seq < last.seq || head.hash !== last.hash) this.#cut(await auditAnchorProblem(this.#log, last));
        return;
      }
      await this.#log.synced?.();
      if (last !== undefined) {
        const problem = await auditAnchorProblem(this.#log, last);
        if (problem !== undefined) return this.#cut(problem);
      }
      await this.#folder.writeAsync<AuditCheckpoint>('audit', this.#name, head);
      this.#last = head;
    } catch (error) {
      this.#onProblem(`the audit anchor could not be written: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #cut(problem: string | undefined): void {
    if (problem === undefined) return;
    this.#broken = true;
    this.#onProblem(`the audit log ${this.#name} was cut while the gateway ran (${problem}); its anchor is kept at record ${this.#last?.seq ?? 0}, and \`switchboard audit verify\` reports it`);
  }

  /** Stops the timer and writes a last checkpoint (call before the log closes). */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
    await this.checkpoint();
  }
}

