/**
 * Verifying an audit archive (`auditArchive.ts`) as a whole history: every segment's file
 * against its keyed manifest (digest, count, each record's hash, link and number), the links
 * from one segment to the next starting at record 1, and the link of the last to the live log
 * (its prune marker, and the `audit-pruned` checkpoint). A range no valid segment covers is a
 * gap, named by its record numbers; a segment that does not fit (overlapping another, past the
 * checkpointed end and no longer live, of another log, renamed) is named as extra.
 *
 * @module
 */
import { AUDIT_GENESIS, rowHash } from './auditChain.js';
import type { AnchorFolder } from './anchor/anchorFile.js';
import { pruneFindings, type ArchivableLog } from './auditArchive.js';
import { checkSegmentFile, listSegmentFiles, readManifest, segmentNames, segmentRecordHash, type ArchiveProblem, type SegmentManifest } from './auditSegments.js';

/** What {@link verifyArchive} found. */
export interface ArchiveVerification {
  readonly ok: boolean;
  /** Valid segments read, and the records in them. */
  readonly segments: number;
  readonly records: number;
  /** The last archived record (0 when none). */
  readonly last: number;
  readonly problems: readonly ArchiveProblem[];
  readonly notes: readonly string[];
}

/**
 * Checks the archive of log `name` in `dir` against the anchor folder's key and checkpoint and
 * against the live log's prune marker (see the module comment).
 */
export async function verifyArchive(log: Pick<ArchivableLog, 'pruned' | 'rows'>, folder: AnchorFolder, name: string, dir: string): Promise<ArchiveVerification> {
  const problems: ArchiveProblem[] = [];
  const notes: string[] = [];
  let listed: Awaited<ReturnType<typeof listSegmentFiles>>;
  try {
    listed = await listSegmentFiles(dir);
  } catch (error) {
    listed = { files: [], manifests: [] };
    problems.push({ seq: 0, problem: `the archive ${dir} cannot be read: ${error instanceof Error ? error.message : String(error)}` });
  }
  const manifests: SegmentManifest[] = [];
  for (const file of listed.manifests) {
    const manifest = await readManifest(folder, name, dir, file);
    if (typeof manifest === 'string') problems.push({ seq: Number(file.slice(4, 16)), problem: `${manifest} (an altered or extra segment)` });
    else manifests.push(manifest);
  }
  const described = new Set(listed.manifests.map((m) => m.replace(/\.manifest\.json$/, '.jsonl.gz')));
  for (const file of listed.files) if (!described.has(file)) problems.push({ seq: Number(file.slice(4, 16)), problem: `segment ${file} has no manifest: it cannot be verified (an extra segment, or its manifest was removed)` });
  manifests.sort((a, b) => a.first - b.first || a.last - b.last);
  let expected = 1;
  let prev = AUDIT_GENESIS;
  let records = 0;
  let segments = 0;
  const ends = new Map<number, string>();
  for (const m of manifests) {
    if (m.first < expected) {
      problems.push({ seq: m.first, problem: `segment ${m.file} overlaps records already archived (up to ${expected - 1}): an extra segment` });
      continue;
    }
    if (m.first > expected) problems.push({ seq: expected, problem: `records ${expected}..${m.first - 1} are missing from the archive: a gap (${segmentNames(expected, m.first - 1).file} or the segments covering it were removed)` });
    else if (m.prev !== prev) problems.push({ seq: m.first, problem: `segment ${m.file} does not link to the record before it (record ${m.first - 1}'s hash differs): a segment was replaced` });
    problems.push(...(await checkSegmentFile(dir, m)));
    segments++;
    records += m.count;
    expected = m.last + 1;
    prev = m.hash;
    ends.set(m.last, m.hash);
  }
  const last = expected - 1;
  // The link to the live log: its marker and the keyed checkpoint of the archive's end.
  const live = await pruneFindings(log, folder, name);
  const end = live.checkpoint;
  if (end === undefined) {
    if (live.start.seq > 0 || manifests.length > 0) problems.push({ seq: live.start.seq, problem: 'this anchor folder holds no checkpoint of the archive\'s end: whether segments were removed from its end cannot be told' });
  } else if (last < end.seq) {
    problems.push({ seq: last + 1, problem: `records ${last + 1}..${end.seq} are missing from the archive (its checkpoint says it reaches record ${end.seq}, of ${end.time}): a gap (the last segments were removed)` });
  } else if (ends.get(end.seq) !== end.hash) {
    problems.push({ seq: end.seq, problem: `the archive's record ${end.seq} is not the one checkpointed (${ends.has(end.seq) ? 'another hash' : 'no segment ends there'}): segments were replaced` });
  }
  if (end !== undefined && last > end.seq) {
    // Segments past the checkpoint: an interrupted run's, fine while their records are still live.
    const [row] = await log.rows(last, last, 1);
    if (row !== undefined && rowHash(row) === prev) notes.push(`records ${end.seq + 1}..${last} are sealed in the archive but not yet checkpointed nor removed (an interrupted run): the next archive run finishes it`);
    else problems.push({ seq: end.seq + 1, problem: `segments after record ${end.seq} (to ${last}) are past the archive's checkpoint and not in the live log: extra segments` });
  }
  if (live.start.seq > 0 && last >= live.start.seq && ends.has(live.start.seq) && ends.get(live.start.seq) !== live.start.hash) {
    problems.push({ seq: live.start.seq, problem: `the live log's prune marker (record ${live.start.seq}) does not link to the archive's record ${live.start.seq}` });
  }
  notes.push(`archive ${dir}: ${segments} segment${segments === 1 ? '' : 's'}, records ${segments > 0 ? `1..${last}` : 'none'}`);
  return { ok: problems.length === 0, segments, records, last, problems: problems.sort((a, b) => a.seq - b.seq), notes };
}

/**
 * The hash of archived record `seq` of log `name` in `dir` (read from the valid segment that
 * holds it), or undefined when no valid segment does. Meaningful once {@link verifyArchive}
 * found the archive intact.
 */
export async function archivedRecordHash(folder: AnchorFolder, name: string, dir: string, seq: number): Promise<string | undefined> {
  for (const file of (await listSegmentFiles(dir)).manifests) {
    const manifest = await readManifest(folder, name, dir, file);
    if (typeof manifest !== 'string' && manifest.first <= seq && seq <= manifest.last) return segmentRecordHash(dir, manifest, seq);
  }
  return undefined;
}
