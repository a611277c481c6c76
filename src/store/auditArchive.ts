/**
 * Archiving the audit log: sealed segments move out of the live store, and the whole history
 * stays verifiable.
 *
 * - **Design.** Segments are ranges of records fixed when they are archived: from the record
 *   after the prune marker, `segmentRecords` at a time (the last one shorter), up to the cut.
 *   Each is written as gzip'd JSONL with a manifest keyed with the anchor key
 *   (`auditSegments.ts`). The live store keeps a prune marker (the last record removed, and its
 *   hash: the `prev` of the first live record), and the anchor folder a keyed `audit-pruned`
 *   checkpoint of the archive's end, so the marker cannot be moved unseen: the live chain is
 *   verified from the marker, the marker against the checkpoint, and each segment against its
 *   manifest and its neighbours (`auditArchiveVerify.ts`).
 * - **Order (crash-safe).** Segments are written, synced, re-read and verified first; then the
 *   `audit-pruned` checkpoint is written; then the records are removed, a chunk at a time, each
 *   chunk with the marker in one transaction. A run stopped anywhere loses nothing: the records
 *   are still live until their copy was verified, and a re-run reuses the segments already
 *   sealed (one starting where the next is due, matching the live chain) instead of writing
 *   them twice, then finishes the removal.
 * - **What stays live.** The head record, and the record anchored by the gateway's checkpoints
 *   (`anchor/auditAnchor.ts`) and everything after it: a writer continues the chain from the
 *   head, and the anchor check needs its record.
 * - **Off the request path.** Everything is async and works a page of rows at a time (gzip on
 *   the thread pool, a yield to the event loop between pages and between removal chunks): the
 *   gateway runs it on a timer (`auditRetention.ts`) without holding up calls.
 *
 * @module
 */
import { join } from 'node:path';
import { McpError, McpErrorCode } from '../util/errors.js';
import { ChainVerifier, withHash, type AuditRow } from './auditChain.js';
import type { AuditCheckpoint } from './anchor/auditAnchor.js';
import type { AnchorFolder } from './anchor/anchorFile.js';
import { SegmentWriter, checkSegmentFile, ensureArchiveDir, listSegmentFiles, readManifest, type SegmentManifest } from './auditSegments.js';

/** A record number and its hash. */
export interface ChainPoint {
  readonly seq: number;
  readonly hash: string;
}

/** What the archiver needs of a live log (the SQLite `AuditTable` and `PgAuditLog` have it). */
export interface ArchivableLog {
  /** The last record (0 and the genesis hash when empty). */
  head(): ChainPoint | Promise<ChainPoint>;
  /** The prune marker (0 and the genesis hash when nothing was removed). */
  pruned(): ChainPoint | Promise<ChainPoint>;
  /** Rows `from..to` with their canonical lines, oldest first, at most `limit` (hash `''` where the compact row keeps none: `rowHash`). */
  rows(from: number, to: number, limit: number): AuditRow[] | Promise<AuditRow[]>;
  /** Removes the records up to `upTo` (which must have `hash`, and not be the head) and moves the marker. */
  prune(upTo: number, hash: string): number | Promise<number>;
  /** Bytes the live records take. */
  usedBytes(): number | Promise<number>;
}

/** The `audit-pruned` checkpoint: the archive's last record, written before records are removed. */
export interface PrunedCheckpoint extends ChainPoint {
  /** When (ISO 8601, UTC). */
  readonly time: string;
  /** The folder the archive was written to (as given). */
  readonly archive: string;
}

/**
 * Where to cut: records with `seq < seq`, or those before `time` (the first record at or after
 * it stops the run); given both, records that either says (whichever cuts later).
 */
export interface ArchiveCut {
  readonly seq?: number;
  /** ISO 8601. */
  readonly time?: string;
}

/** Options of {@link archiveAudit}. */
export interface ArchiveOptions {
  /** The archive folder (created with mode 0700). */
  readonly out: string;
  readonly before: ArchiveCut;
  /** Most records per segment. Default {@link DEFAULT_SEGMENT_RECORDS}. */
  readonly segmentRecords?: number;
  readonly now?: () => number;
}

/** What {@link archiveAudit} did. */
export interface ArchiveResult {
  /** The segments of this run, oldest first (`reused`: already sealed by an earlier, interrupted run). */
  readonly segments: readonly (SegmentManifest & { readonly reused: boolean })[];
  /** The prune marker after the run. */
  readonly pruned: ChainPoint;
  /** Records removed from the live log. */
  readonly removed: number;
}

/** {@link ArchiveOptions.segmentRecords}' default. */
export const DEFAULT_SEGMENT_RECORDS = 100_000;
/** Rows read per page. */
const PAGE = 2000;
/** Rows removed per transaction (each a short hold of SQLite's write lock, and of the event loop). */
const REMOVE_CHUNK = 500;

const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An archive run that cannot go on (the live log or the archive folder is not as it must be); nothing was removed past what it says. */
export class ArchiveError extends McpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(McpErrorCode.StoreCorrupt, message, options);
  }
}

/**
 * What is wrong with the live log's prune marker against the `audit-pruned` checkpoint of log
 * `name`: problems (a removed range without a checkpointed archive is a gap, never intact) and
 * notes. `start` is where the live chain is verified from.
 */
export async function pruneFindings(log: Pick<ArchivableLog, 'pruned' | 'rows'>, folder: AnchorFolder, name: string): Promise<{ start: ChainPoint; checkpoint: PrunedCheckpoint | undefined; problems: { seq: number; problem: string }[]; notes: string[] }> {
  const start = await log.pruned();
  const problems: { seq: number; problem: string }[] = [];
  const notes: string[] = [];
  let checkpoint: PrunedCheckpoint | undefined;
  try {
    checkpoint = folder.read<PrunedCheckpoint>('audit-pruned', name);
  } catch (error) {
    problems.push({ seq: start.seq, problem: `archive checkpoint: ${error instanceof Error ? error.message : String(error)}` });
    return { start, checkpoint, problems, notes };
  }
  if (checkpoint === undefined) {
    if (start.seq > 0) problems.push({ seq: start.seq, problem: `records 1..${start.seq} were removed from the live log, but this anchor folder holds no checkpoint of an archive of them: a gap, not verified` });
  } else if (checkpoint.seq < start.seq) {
    problems.push({ seq: start.seq, problem: `records ${checkpoint.seq + 1}..${start.seq} were removed from the live log past the archive's checkpoint (record ${checkpoint.seq}, ${checkpoint.time}): a gap, not verified` });
  } else if (checkpoint.seq === start.seq) {
    if (checkpoint.hash !== start.hash) problems.push({ seq: start.seq, problem: `the prune marker's hash of record ${start.seq} is not the archive checkpoint's: the marker was rewritten` });
    else notes.push(`records 1..${start.seq} are archived (checkpoint of ${checkpoint.time}, in ${checkpoint.archive}) and not checked here: --archive DIR checks them`);
  } else {
    // Archived, not yet removed (a run stopped between its checkpoint and the removal): the record is still live.
    const [stored] = await log.rows(checkpoint.seq, checkpoint.seq, 1);
    const row = stored !== undefined ? withHash(stored) : undefined;
    if (row?.hash !== checkpoint.hash) problems.push({ seq: checkpoint.seq, problem: `the archive checkpoint says record ${checkpoint.seq} was archived with hash ${checkpoint.hash}, but the live log ${row === undefined ? 'does not hold it' : 'holds another'}` });
    else notes.push(`records ${start.seq + 1}..${checkpoint.seq} are archived (checkpoint of ${checkpoint.time}) but not yet removed from the live log: the next archive run removes them`);
  }
  return { start, checkpoint, problems, notes };
}

/** The live record `seq` with its hash, or an {@link ArchiveError}. */
async function liveRow(log: ArchivableLog, seq: number): Promise<AuditRow> {
  const [row] = await log.rows(seq, seq, 1);
  if (row === undefined) throw new ArchiveError(`record ${seq} is not in the live log`);
  return withHash(row);
}

/** The valid manifests in `dir` by first record (an invalid one where the next segment is due stops the run). */
async function sealedSegments(folder: AnchorFolder, name: string, dir: string): Promise<Map<number, SegmentManifest | string>> {
  const byFirst = new Map<number, SegmentManifest | string>();
  for (const file of (await listSegmentFiles(dir)).manifests) {
    const manifest = await readManifest(folder, name, dir, file);
    byFirst.set(typeof manifest === 'string' ? Number(file.slice(4, 16)) : manifest.first, manifest);
  }
  return byFirst;
}

/**
 * Copies live rows `next..last` (after `after`) into `writer`, checking their chain, until the
 * time cut (`before.time`, past `mustReach`); resolves true when the cut stopped it.
 *
 * @throws ArchiveError when the live rows do not verify (nothing of them is sealed) or are missing.
 */
async function copyRows(log: ArchivableLog, writer: SegmentWriter, range: { readonly next: number; readonly last: number; readonly after: ChainPoint; readonly before: ArchiveCut; readonly mustReach: number }): Promise<boolean> {
  const { next, last, before, mustReach } = range;
  const verifier = new ChainVerifier(range.after.seq > 0 ? range.after : undefined);
  const check = (): void => {
    const checked = verifier.result();
    if (!checked.ok) throw new ArchiveError(`The live audit log is not intact where it is to be archived; nothing was archived from record ${next} on: ${checked.problems.map((p) => `record ${p.seq}: ${p.problem}`).join('; ')}`);
  };
  for (let from = next; from <= last; ) {
    const rows = await log.rows(from, last, PAGE);
    for (const row of rows) {
      const time = (JSON.parse(row.line) as { time?: unknown }).time;
      const when = typeof time === 'string' ? time : '';
      if (before.time !== undefined && when >= before.time && row.seq > mustReach && (before.seq === undefined || row.seq >= before.seq)) {
        check();
        return true;
      }
      verifier.add(row);
      await writer.add(row, when);
    }
    check();
    const lastRow = rows.at(-1);
    if (lastRow === undefined) throw new ArchiveError(`records ${from}..${last} are missing from the live log`);
    from = lastRow.seq + 1;
    await yieldTurn();
  }
  return false;
}

/**
 * Archives the records of log `name` before `options.before` into sealed segments in
 * `options.out`, then removes them from the live log (see the module comment for the order).
 *
 * @throws ArchiveError when the live log's removed range or chain is not intact, or the folder
 *   holds a segment where the next is due that does not match the live log.
 */
export async function archiveAudit(log: ArchivableLog, folder: AnchorFolder, name: string, options: ArchiveOptions): Promise<ArchiveResult> {
  const now = options.now ?? Date.now;
  const perSegment = options.segmentRecords ?? DEFAULT_SEGMENT_RECORDS;
  await ensureArchiveDir(options.out);
  const findings = await pruneFindings(log, folder, name);
  if (findings.problems.length > 0) throw new ArchiveError(`The audit log ${name} is not archived: ${findings.problems.map((p) => p.problem).join('; ')}`);
  const start = findings.start;
  const head = await log.head();
  const anchored = folder.read<AuditCheckpoint>('audit', name);
  // The head and the anchored record (and what follows) stay live.
  const hardLimit = Math.min(head.seq - 1, anchored !== undefined && anchored.seq > 0 ? anchored.seq - 1 : Infinity);
  let limit = hardLimit;
  // With both a number and a time, whichever cuts later wins (the loop stops where both say so).
  if (options.before.seq !== undefined && options.before.time === undefined) limit = Math.min(limit, options.before.seq - 1);
  // An interrupted run's checkpoint is honoured: its records are archived (reused) and removed whatever this cut says.
  const mustReach = findings.checkpoint !== undefined && findings.checkpoint.seq > start.seq ? findings.checkpoint.seq : 0;
  limit = Math.max(limit, mustReach);
  const sealed = await sealedSegments(folder, name, options.out);
  const segments: (SegmentManifest & { reused: boolean })[] = [];
  let end: ChainPoint = start;
  let stopped = false;
  while (!stopped && end.seq < limit) {
    const next = end.seq + 1;
    const invalid = sealed.get(next);
    if (typeof invalid === 'string') throw new ArchiveError(`${options.out} holds a segment starting at record ${next} that is not valid (${invalid}); move it away`);
    // A segment holding the next record (starting there, or before it where a run stopped mid-removal).
    const existing = [...sealed.values()].find((m): m is SegmentManifest => typeof m !== 'string' && m.first <= next && next <= m.last);
    // Sealed by an interrupted run: reused when it is intact and continues the live chain (even past
    // this run's cut: the segments stay as sealed, never overlapping).
    if (existing !== undefined && existing.last <= hardLimit) {
      const live = await liveRow(log, existing.last);
      const problems = await checkSegmentFile(options.out, existing);
      if ((existing.first === next && existing.prev !== end.hash) || live.hash !== existing.hash || problems.length > 0) {
        throw new ArchiveError(`${options.out} holds ${existing.file}, which does not match the live log (${problems[0]?.problem ?? 'another chain'}); move it away`);
      }
      segments.push({ ...existing, reused: true });
      end = { seq: existing.last, hash: existing.hash };
      continue;
    }
    const writer = new SegmentWriter(options.out, next, end.hash);
    const last = Math.min(limit, next + perSegment - 1);
    try {
      stopped = await copyRows(log, writer, { next, last, after: end, before: options.before, mustReach });
    } catch (error) {
      await writer.abandon();
      throw error;
    }
    if (writer.count === 0) {
      await writer.abandon();
      break;
    }
    const manifest = await writer.seal(folder, name, now);
    const problems = await checkSegmentFile(options.out, manifest);
    if (problems.length > 0) throw new ArchiveError(`the copy of records ${manifest.first}..${manifest.last} in ${join(options.out, manifest.file)} does not read back as written (${problems[0]?.problem ?? ''}); nothing was removed from the live log`);
    segments.push({ ...manifest, reused: false });
    end = { seq: manifest.last, hash: manifest.hash };
  }
  if (end.seq === start.seq) return { segments, pruned: start, removed: 0 };
  // Verified copies are on disk: checkpoint the archive's end, then remove, a chunk at a time (the marker moves with each).
  folder.write<PrunedCheckpoint>('audit-pruned', name, { seq: end.seq, hash: end.hash, time: new Date(now()).toISOString(), archive: options.out });
  let removed = 0;
  for (let upTo = Math.min(start.seq + REMOVE_CHUNK, end.seq); ; upTo = Math.min(upTo + REMOVE_CHUNK, end.seq)) {
    const hash = upTo === end.seq ? end.hash : (await liveRow(log, upTo)).hash;
    removed += await log.prune(upTo, hash);
    if (upTo === end.seq) break;
    await yieldTurn();
  }
  return { segments, pruned: end, removed };
}
