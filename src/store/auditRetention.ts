/**
 * The gateway's own archiving (`switchboard.audit.retention`): on a timer (unref'd, never on a
 * request's path) it works out where to cut from the policy (records older than `keepDays`;
 * the oldest records beyond `keepGB` of live log, estimated from the bytes per live record)
 * and runs {@link archiveAudit}, which works a page at a time and yields to the event loop
 * between pages, so calls keep being served. One run at a time; a failed run is logged and
 * removes nothing it did not verify (the next run retries). Also the sentence a full disk's
 * refusal carries: which retention setting would free space.
 *
 * @module
 */
import type { AuditRetentionConfig } from '../host/configTypes.js';
import { describeError } from '../util/errors.js';
import type { AnchorFolder } from './anchor/anchorFile.js';
import { archiveAudit, type ArchivableLog, type ArchiveCut, type ArchiveResult } from './auditArchive.js';

/** Where a retention run logs. */
export interface RetentionLogger {
  info(message: string): void;
  error(message: string): void;
}

const DAY_MS = 86_400_000;
/** The first run's delay after start (the gateway is up and serving first). */
const FIRST_RUN_MS = 60_000;

/** Where `policy` cuts `log` now: undefined when nothing is due. */
export async function retentionCut(log: Pick<ArchivableLog, 'head' | 'pruned' | 'usedBytes'>, policy: Pick<AuditRetentionConfig, 'keepDays' | 'keepGB'>, now: number): Promise<ArchiveCut | undefined> {
  const cut: { seq?: number; time?: string } = {};
  if (policy.keepDays !== undefined) cut.time = new Date(now - policy.keepDays * DAY_MS).toISOString();
  if (policy.keepGB !== undefined) {
    const keep = policy.keepGB * 1e9;
    const used = await log.usedBytes();
    const [head, pruned] = await Promise.all([log.head(), log.pruned()]);
    const live = head.seq - pruned.seq;
    if (used > keep && live > 0) cut.seq = pruned.seq + Math.ceil((used - keep) / (used / live)) + 1;
  }
  return cut.seq !== undefined || cut.time !== undefined ? cut : undefined;
}

/**
 * What to tell the person when the disk under the audit log is full: which retention setting
 * frees space (with retention on), or that retention is off.
 */
export function retentionHint(policy: AuditRetentionConfig | undefined): string {
  if (policy === undefined) return 'switchboard.audit.retention is off: set keepDays or keepGB there (or run `switchboard audit archive --before ... --out DIR`) to move old records out of the live log';
  const bounds = [policy.keepDays !== undefined ? `keepDays (now ${policy.keepDays})` : undefined, policy.keepGB !== undefined ? `keepGB (now ${policy.keepGB})` : undefined].filter((b) => b !== undefined);
  return `a lower switchboard.audit.retention.${bounds.join(' or ')} frees space in the live log; its archive goes to ${policy.archiveDir} (switchboard.audit.retention.archiveDir: on another disk if this one is full)`;
}

/** The retention timer of one log (see the module comment). */
export class AuditRetention {
  readonly #log: ArchivableLog;
  readonly #folder: AnchorFolder;
  readonly #name: string;
  readonly #policy: AuditRetentionConfig;
  readonly #logger: RetentionLogger;
  readonly #now: () => number;
  #running: Promise<ArchiveResult | undefined> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(log: ArchivableLog, folder: AnchorFolder, name: string, policy: AuditRetentionConfig, logger: RetentionLogger, options: { readonly now?: () => number } = {}) {
    this.#log = log;
    this.#folder = folder;
    this.#name = name;
    this.#policy = policy;
    this.#logger = logger;
    this.#now = options.now ?? Date.now;
  }

  /** Starts the timer: a first run a minute after start, then every `intervalMinutes` (default 60). */
  start(): this {
    this.#schedule(FIRST_RUN_MS);
    return this;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.run().finally(() => this.#schedule((this.#policy.intervalMinutes ?? 60) * 60_000));
    }, ms);
    this.#timer.unref?.();
  }

  /** Runs once now (or joins the run in progress); resolves with what it did, undefined when nothing was due or it failed (logged). */
  run(): Promise<ArchiveResult | undefined> {
    this.#running ??= this.#run().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #run(): Promise<ArchiveResult | undefined> {
    try {
      const before = await retentionCut(this.#log, this.#policy, this.#now());
      if (before === undefined) return undefined;
      const result = await archiveAudit(this.#log, this.#folder, this.#name, { out: this.#policy.archiveDir, before, now: this.#now, ...(this.#policy.segmentRecords !== undefined ? { segmentRecords: this.#policy.segmentRecords } : {}) });
      if (result.segments.length > 0) {
        const first = result.segments[0]?.first ?? 0;
        this.#logger.info(`audit retention: archived records ${first}..${result.pruned.seq} in ${result.segments.length} sealed segment${result.segments.length === 1 ? '' : 's'} to ${this.#policy.archiveDir}; removed ${result.removed} from the live log`);
      }
      return result;
    } catch (error) {
      this.#logger.error(`audit retention: the archive run failed, nothing unverified was removed (the next run retries): ${describeError(error)}`);
      return undefined;
    }
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#running;
  }
}
