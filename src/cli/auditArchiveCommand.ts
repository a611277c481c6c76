/**
 * `switchboard audit archive` and what `audit verify` checks of an archived log: the cut
 * (`--before`), the run (`store/auditArchive.ts`), and the prune marker and `--archive DIR`
 * findings added to the chain's own check.
 *
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import { archiveAudit, pruneFindings, type ArchivableLog, type ArchiveCut, type ArchiveResult } from '../store/auditArchive.js';
import { archivedRecordHash, verifyArchive, type ArchiveVerification } from '../store/auditArchiveVerify.js';
import { describeError } from '../util/errors.js';
import { CliFailure, UsageError } from './args.js';
import { openAnchors } from './stateAnchors.js';

/** `--before`: a record number (records before it) or a time (ISO 8601; records before it). */
export function archiveCut(value: unknown): ArchiveCut {
  if (typeof value !== 'string' || value === '') throw new UsageError('archive needs --before <record number|time> (records before it are archived)');
  if (/^\d+$/.test(value)) {
    const seq = Number(value);
    if (!Number.isSafeInteger(seq) || seq < 2) throw new UsageError(`--before ${value}: a record number from 2 on`);
    return { seq };
  }
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) throw new UsageError(`--before ${JSON.stringify(value)} is neither a record number nor an ISO 8601 time (2026-01-31, 2026-01-31T12:00:00Z)`);
  return { time: new Date(time).toISOString() };
}

/** Runs `audit archive` on `log` (named `name`); prints what was sealed and removed; resolves with the exit code. */
export async function runArchive(log: ArchivableLog, name: string, options: Readonly<Record<string, unknown>>, out: (line: string) => void): Promise<number> {
  const dir = typeof options['out'] === 'string' && options['out'] !== '' ? resolvePath(options['out']) : undefined;
  if (dir === undefined) throw new UsageError('archive needs --out DIR (the archive folder)');
  const before = archiveCut(options['before']);
  const perSegment = options['segment-records'] === undefined ? undefined : Number(options['segment-records']);
  if (perSegment !== undefined && (!/^\d+$/.test(String(options['segment-records'])) || perSegment < 1)) throw new UsageError(`--segment-records must be a positive integer, got ${JSON.stringify(options['segment-records'])}`);
  let result: ArchiveResult;
  try {
    result = await archiveAudit(log, openAnchors(), name, { out: dir, before, ...(perSegment !== undefined ? { segmentRecords: perSegment } : {}) });
  } catch (error) {
    throw new CliFailure(describeError(error));
  }
  if (options['json'] === true) {
    out(JSON.stringify({ out: dir, segments: result.segments.map((s) => ({ file: s.file, first: s.first, last: s.last, count: s.count, reused: s.reused })), pruned: result.pruned, removed: result.removed }));
    return 0;
  }
  for (const s of result.segments) out(`${s.reused ? 'reused' : 'sealed'} ${s.file}: records ${s.first}..${s.last} (${s.count})`);
  out(result.removed > 0 || result.segments.length > 0 ? `archived to ${dir}; removed ${result.removed} records from the live log, which now starts at record ${result.pruned.seq + 1}` : 'nothing to archive before that cut (the head and the anchored record stay live)');
  return 0;
}

/** What `audit verify` adds for an archived log: the prune marker against its checkpoint, and with `archive` the whole archive. */
export interface ArchiveFindings {
  readonly from: number;
  readonly problems: { readonly seq: number; readonly problem: string }[];
  readonly notes: string[];
  readonly archive?: Pick<ArchiveVerification, 'segments' | 'records' | 'last'>;
  /** Where the removed records are, for a witness's checkpoint (`auditAnchorCheck.ts`); `hashOf` only with an archive (`--archive`). */
  readonly archived: { readonly prunedTo: number; readonly hashOf?: (seq: number) => Promise<string | undefined> };
}

/** The prune marker's findings and, with `archive` (a folder), the archive's (see `store/auditArchiveVerify.ts`). */
export async function archiveFindings(log: Pick<ArchivableLog, 'pruned' | 'rows'>, name: string, archive: string | undefined): Promise<ArchiveFindings> {
  const folder = openAnchors();
  const live = await pruneFindings(log, folder, name);
  if (archive === undefined) return { from: live.start.seq + 1, problems: live.problems, notes: live.notes, archived: { prunedTo: live.start.seq } };
  const dir = resolvePath(archive);
  const archived = await verifyArchive(log, folder, name, dir);
  return {
    archived: { prunedTo: live.start.seq, hashOf: (seq: number) => archivedRecordHash(folder, name, dir, seq) },
    from: live.start.seq + 1,
    problems: [...live.problems, ...archived.problems],
    // With the archive checked, the note that it is not checked here is left out.
    notes: [...live.notes.filter((n) => !n.includes('not checked here')), ...archived.notes],
    archive: { segments: archived.segments, records: archived.records, last: archived.last },
  };
}
