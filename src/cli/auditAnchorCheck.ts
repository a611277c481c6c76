/**
 * What `switchboard audit verify` and `audit checkpoint` add to the chain's own check: the
 * log against its anchor (a truncated tail, an emptied, replaced or re-chained log), against a
 * witness's copy of a signed checkpoint (`--checkpoint FILE`), and the signed head exported
 * for a witness (see `store/anchor/auditWitness.ts`).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { AuditReader } from '../host/audit.js';
import { auditAnchorProblem, auditHead, type AuditCheckpoint } from '../store/anchor/auditAnchor.js';
import { readSignedCheckpoint, signCheckpoint, witnessKey, witnessThumbprint, type SignedCheckpoint } from '../store/anchor/auditWitness.js';
import { describeError } from '../util/errors.js';
import { CliFailure } from './args.js';
import { openAnchors } from './stateAnchors.js';

/** What the anchor checks found: problems (the log is not intact) and notes (said, not failing). */
export interface AnchorFindings {
  readonly problems: { readonly seq: number; readonly problem: string }[];
  readonly notes: string[];
}

/** Where an archived log's records are (see `auditArchiveCommand.ts`): removed up to `prunedTo`; `hashOf` reads an archived record's hash from a verified archive. */
export interface ArchivedRange {
  readonly prunedTo: number;
  readonly hashOf?: (seq: number) => Promise<string | undefined>;
}

/**
 * Checks `log` (named `name`) against its anchor, and against the signed checkpoint in
 * `checkpointFile` when given (its record, once archived, against the archive: `archived`).
 */
export async function anchorFindings(log: Pick<AuditReader, 'read' | 'tail'>, name: string, checkpointFile?: string, archived?: ArchivedRange): Promise<AnchorFindings> {
  const findings: AnchorFindings = { problems: [], notes: [] };
  let anchor: AuditCheckpoint | undefined;
  try {
    anchor = openAnchors().read<AuditCheckpoint>('audit', name);
  } catch (error) {
    findings.problems.push({ seq: 0, problem: `anchor: ${describeError(error)}` });
  }
  if (anchor !== undefined) {
    const problem = await auditAnchorProblem(log, anchor);
    if (problem !== undefined) findings.problems.push({ seq: anchor.seq, problem: `anchor (checkpoint of ${anchor.time}): ${problem}` });
    else findings.notes.push(`anchored at record ${anchor.seq} (checkpoint of ${anchor.time})`);
  } else if (findings.problems.length === 0) {
    findings.notes.push('no anchor for this log in this user\'s anchor folder: a truncated tail or an emptied log cannot be told from an intact one here');
  }
  if (checkpointFile !== undefined) {
    let text: string;
    try {
      text = await readFile(checkpointFile, 'utf8');
    } catch (error) {
      throw new CliFailure(`--checkpoint ${checkpointFile} cannot be read: ${describeError(error)}`);
    }
    const checkpoint = readSignedCheckpoint(text);
    if (typeof checkpoint === 'string') findings.problems.push({ seq: 0, problem: `checkpoint ${checkpointFile}: ${checkpoint}` });
    else if (archived !== undefined && checkpoint.seq > 0 && checkpoint.seq <= archived.prunedTo) {
      // Its record left the live log: the archive holds it.
      const hash = await archived.hashOf?.(checkpoint.seq);
      if (archived.hashOf === undefined) findings.notes.push(`the signed checkpoint's record ${checkpoint.seq} is archived (the live log starts at ${archived.prunedTo + 1}): --archive DIR checks it there`);
      else if (hash !== checkpoint.hash) findings.problems.push({ seq: checkpoint.seq, problem: `checkpoint ${checkpointFile} (signed ${checkpoint.time}): the archive ${hash === undefined ? 'does not hold' : 'holds another'} record ${checkpoint.seq}` });
      else findings.notes.push(`the archive holds the signed checkpoint's record ${checkpoint.seq} (signed ${checkpoint.time} by key ${witnessThumbprint(checkpoint.key)})`);
    } else {
      const problem = await auditAnchorProblem(log, checkpoint);
      if (problem !== undefined) findings.problems.push({ seq: checkpoint.seq, problem: `checkpoint ${checkpointFile} (signed ${checkpoint.time}): ${problem}` });
      else findings.notes.push(`holds the signed checkpoint's record ${checkpoint.seq} (signed ${checkpoint.time} by key ${witnessThumbprint(checkpoint.key)})`);
      if (checkpoint.log !== name) findings.notes.push(`the checkpoint names the log ${checkpoint.log}, this is ${name}`);
    }
  }
  return findings;
}

/**
 * The signed head of `log` for a witness. Refuses (a {@link CliFailure}) when the log does not
 * hold its anchored record: a broken chain's head is not signed.
 */
export async function exportCheckpoint(log: Pick<AuditReader, 'read' | 'tail'>, name: string): Promise<SignedCheckpoint> {
  const { problems } = await anchorFindings(log, name);
  if (problems.length > 0) throw new CliFailure(`not signing the head of a log that does not match its anchor: ${problems.map((p) => p.problem).join('; ')}`);
  return signCheckpoint(await auditHead(log), name, witnessKey(openAnchors()));
}
