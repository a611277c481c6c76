/**
 * The audit hash chain every audit store writes and checks the same way: a record's canonical
 * text (RFC 8785) includes `prev`, its predecessor's hash, and `hash` is `sha256:` of that text
 * ({@link chainRecord}); {@link ChainVerifier} re-computes the hashes and links of stored rows,
 * oldest first, and names each record that was edited, deleted, inserted or reordered.
 *
 * @module
 */
import { hash as oneShotHash } from 'node:crypto';
import type { AuditEntry, AuditRecord, AuditVerification } from '../host/audit.js';
import { canonicalize, canonicalString } from '../util/canonicalJson.js';
import { deepFrozen } from '../util/deepFrozen.js';

/** The `prev` of the first record. */
export const AUDIT_GENESIS = `sha256:${'0'.repeat(64)}`;

/**
 * A stored record: its number, canonical text and hash. A store may keep the hash of only some
 * records (the SQLite log keeps each write's last); `''` then says it is not stored, and the
 * hash is the one of the line ({@link rowHash}).
 */
export interface AuditRow {
  readonly seq: number;
  readonly line: string;
  readonly hash: string;
}

/** The hash of `row`: the one stored, or the line's when none is (`''`). */
export function rowHash(row: AuditRow): string {
  return row.hash !== '' ? row.hash : sha256Text(row.line);
}

/** `row` with its hash: the stored one, or re-computed from its line where the compact row keeps none. */
export function withHash(row: AuditRow): AuditRow {
  return row.hash !== '' ? row : { seq: row.seq, line: row.line, hash: sha256Text(row.line) };
}

/** `sha256:<hex>` of a text (UTF-8), with node's one-shot `crypto.hash` (no Hash object per record). */
export function sha256Text(text: string): string {
  return `sha256:${oneShotHash('sha256', text, 'hex')}`;
}

/** A row as {@link chainRecord} makes it, with the record it holds (what an append resolves with). */
export interface ChainedRow extends AuditRow {
  readonly record: AuditRecord;
  /**
   * The canonical text of the `decisions` member's array when every decision in it is frozen
   * (decided once, recorded on many calls: the policy's default allow), and the line was written
   * member by member, so the member sits where {@link compactLine} looks for it. A store may
   * keep such a text once and the line without it.
   */
  readonly sharedDecisions?: string | undefined;
  /**
   * Whether the line was written member by member: then its `argumentsDigest`, when it has one,
   * is the first member, in lowercase hex ({@link compactLine} may cut it out).
   */
  readonly memberwise?: boolean;
}

/** How a line {@link chainRecord} wrote begins when it has an `argumentsDigest` (always `sha256:` and 64 hex digits). */
const DIGEST_START = '{"argumentsDigest":"sha256:';
/** Where the `decisions` member begins in such a line: after `{`, and after the digest member when there is one. */
const DECISIONS_AFTER_DIGEST = DIGEST_START.length + 64 + '",'.length;


/** A line as a store may keep it ({@link compactLine}). */
export interface CompactLine {
  /** The line without the members kept apart (still JSON: `{` and the members after them). */
  readonly line: string;
  /** The `argumentsDigest`'s 64 lowercase hex digits when it was cut out (a store keeps them as 32 bytes). */
  readonly digest: string | undefined;
  /** Whether the `decisions` member was cut out (its text is kept apart). */
  readonly decisions: boolean;
}

/**
 * A row's line without the members a store keeps apart: the `argumentsDigest` (the first
 * member of a line written member by member, in lowercase hex), and the `decisions` member when
 * its text `decisions` is given (kept once for many rows) and sits where {@link chainRecord}
 * writes it. One slice of the line, whatever is cut. {@link fullLine} restores it exactly.
 */
export function compactLine(row: ChainedRow, decisions: string | undefined): CompactLine {
  const line = row.line;
  let at = 1;
  let digest: string | undefined;
  if (row.memberwise === true && line.startsWith(DIGEST_START) && line.charCodeAt(DECISIONS_AFTER_DIGEST - 2) === 34 /* " */ && line.charCodeAt(DECISIONS_AFTER_DIGEST - 1) === 44 /* , */) {
    digest = line.slice(DIGEST_START.length, DECISIONS_AFTER_DIGEST - 2);
    at = DECISIONS_AFTER_DIGEST;
  }
  const cut = decisions !== undefined && row.memberwise === true && line.startsWith('"decisions":', at) && line.startsWith(decisions, at + 12) && line.charCodeAt(at + 12 + decisions.length) === 44; /* , */
  if (cut) at += 12 + decisions.length + 1;
  return { line: at === 1 ? line : `{${line.slice(at)}`, digest, decisions: cut };
}

/** The canonical line of a {@link compactLine}: its `digest` (hex) and its `decisions` text put back. */
export function fullLine(stored: string, digest: string | undefined, decisions: string | undefined): string {
  if (digest === undefined && decisions === undefined) return stored;
  const front = `${digest !== undefined ? `${DIGEST_START}${digest}",` : '{'}${decisions !== undefined ? `"decisions":${decisions},` : ''}`;
  return front + stored.slice(1);
}


/**
 * The members a stored record can have, in RFC 8785 order (names compared as UTF-16 code
 * units): {@link chainRecord} writes an entry that has no other member in this order directly,
 * without collecting and sorting its names.
 */
const RECORD_MEMBERS = ['argumentsDigest', 'credential', 'decisions', 'error', 'kind', 'latencyMs', 'method', 'name', 'outcome', 'prev', 'principal', 'seq', 'server', 'serverMethod', 'session', 'time'] as const;
const ENTRY_MEMBERS: ReadonlySet<string> = new Set<string>([...RECORD_MEMBERS.filter((m) => m !== 'argumentsDigest' && m !== 'prev' && m !== 'seq'), 'arguments']);

/** The row of `entry` as record number `seq` after `prev`: arguments replaced by their digest. */
export function chainRecord(entry: AuditEntry, seq: number, prev: string): ChainedRow {
  const args = entry.arguments;
  const digest = args !== undefined ? sha256Text(canonicalize(args)) : undefined;
  // One object for the record (the entry's members but `arguments`, in the order a spread keeps).
  // The same walk notes whether every member is one the memberwise text knows.
  const record: Record<string, unknown> = { seq };
  let known = true;
  for (const key in entry) {
    if (!ENTRY_MEMBERS.has(key)) known = false;
    if (key !== 'arguments') record[key] = entry[key as keyof AuditEntry];
  }
  if (digest !== undefined) record['argumentsDigest'] = digest;
  record['prev'] = prev;
  const decisions = known ? decisionsText(entry.decisions) : undefined;
  const fast = decisions !== undefined ? canonicalRecord(entry, seq, prev, digest, decisions.text) : undefined;
  const line = fast ?? canonicalize(record);
  const hash = sha256Text(line);
  record['hash'] = hash;
  // One shape for every row (no member added afterwards).
  return { seq, line, hash, record: record as unknown as AuditRecord, memberwise: fast !== undefined, sharedDecisions: fast !== undefined && decisions?.frozen === true ? decisions.text : undefined };
}

/**
 * The canonical texts of decisions that cannot change (frozen, all the way down: the policy's
 * default allow is one object recorded on every call), so each is canonicalised once.
 */
const frozenDecisionText = new WeakMap<object, string>();

/** The text of an array of one frozen decision, `[<its text>]`: the same string every time (a store's lookup of it then hashes nothing). */
const frozenDecisionArray = new WeakMap<object, string>();

/** The canonical text of one decision, or undefined when it is not I-JSON. */
function decisionText(decision: object): string | undefined {
  const known = frozenDecisionText.get(decision);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = canonicalize(decision);
  } catch {
    return undefined;
  }
  if (deepFrozen(decision)) frozenDecisionText.set(decision, text);
  return text;
}

/**
 * The canonical text of a `decisions` array, and whether every decision in it is frozen (see
 * {@link ChainedRow.sharedDecisions}); undefined when it is not an array of I-JSON objects.
 */
function decisionsText(decisions: unknown): { readonly text: string; readonly frozen: boolean } | undefined {
  if (!Array.isArray(decisions)) return undefined;
  if (decisions.length === 1) {
    const d: unknown = decisions[0];
    if (d === null || typeof d !== 'object' || Array.isArray(d)) return undefined;
    const known = frozenDecisionArray.get(d);
    if (known !== undefined) return { text: known, frozen: true };
    const text = decisionText(d);
    if (text === undefined) return undefined;
    if (!frozenDecisionText.has(d)) return { text: `[${text}]`, frozen: false };
    const array = `[${text}]`;
    frozenDecisionArray.set(d, array);
    return { text: array, frozen: true };
  }
  let text = '[';
  let frozen = true;
  for (let i = 0; i < decisions.length; i++) {
    const d: unknown = decisions[i];
    const one = d !== null && typeof d === 'object' && !Array.isArray(d) ? decisionText(d) : undefined;
    if (one === undefined) return undefined;
    if (!frozenDecisionText.has(d as object)) frozen = false;
    text += i > 0 ? `,${one}` : one;
  }
  return { text: `${text}]`, frozen };
}

/**
 * A character `JSON.stringify` would escape in a string (a quote, a backslash, a control
 * character), or a surrogate (a lone one is not I-JSON; pairs are left to the full check too).
 * A string without any is its own canonical text between quotes.
 */
// eslint-disable-next-line no-control-regex -- the control characters JSON.stringify escapes are the point
const NOT_PLAIN = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `"name":` and `,"name":` of each member, made once (the canonical text is built from pieces). */
const MEMBER_PREFIXES: Readonly<Record<(typeof RECORD_MEMBERS)[number], readonly [first: string, next: string]>> = Object.fromEntries(
  RECORD_MEMBERS.map((m) => [m, [`"${m}":`, `,"${m}":`] as const]),
) as Record<(typeof RECORD_MEMBERS)[number], readonly [string, string]>;

/**
 * The pieces of one record's canonical text, in an array kept from record to record (its slots
 * emptied after each join), so a record costs no array growth: only its joined text.
 * {@link canonicalRecord} is synchronous and calls nothing that writes a record, so one is enough.
 */
class Pieces {
  readonly #parts: string[] = new Array<string>(64).fill('');
  #count = 0;

  /** Whether no member has been written yet (the next one takes no comma). */
  get first(): boolean {
    return this.#count === 1;
  }

  add(piece: string): void {
    this.#parts[this.#count++] = piece;
  }

  /** Member `key` with the canonical text of the string `value`; false when it is not an I-JSON string. */
  addString(key: (typeof RECORD_MEMBERS)[number], value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const prefix = MEMBER_PREFIXES[key][this.first ? 0 : 1];
    if (!NOT_PLAIN.test(value)) {
      this.add(prefix);
      this.add('"');
      this.add(value);
      this.add('"');
      return true;
    }
    const text = canonicalString(value);
    if (text === undefined) return false;
    this.add(prefix);
    this.add(text);
    return true;
  }

  /** Member `key` with the canonical text of the number `value`; false when it is not finite. */
  addNumber(key: (typeof RECORD_MEMBERS)[number], value: unknown): boolean {
    if (typeof value !== 'number' || !Number.isFinite(value)) return false;
    this.add(MEMBER_PREFIXES[key][this.first ? 0 : 1]);
    this.add(JSON.stringify(value));
    return true;
  }

  /** The text so far, joined once; the slots are emptied for the next record. */
  joined(): string {
    const text = this.#parts.join('');
    this.clear();
    return text;
  }

  /** Empties the slots written (after a join, or a record given up half way). */
  clear(): void {
    for (let i = 0; i < this.#count; i++) this.#parts[i] = '';
    this.#count = 0;
  }
}

const pieces = new Pieces();

/**
 * The canonical text of a record whose members are all in {@link RECORD_MEMBERS}, written member
 * by member in that order straight from the entry (no intermediate record object). Undefined
 * when a member is not I-JSON or not of its declared type (the caller then canonicalises the
 * whole record, which names the offending path). The pieces are collected and joined once: one
 * flat string, not a rope of partial texts (the hash and the database read it flat); a string
 * that needs no escaping goes in as itself between quotes, not as a quoted copy.
 */
function canonicalRecord(entry: AuditEntry, seq: number, prev: string, digest: string | undefined, decisions: string): string | undefined {
  const out = pieces;
  out.clear();
  out.add('{');
  if (digest !== undefined) {
    out.add(MEMBER_PREFIXES.argumentsDigest[0]);
    out.add('"');
    out.add(digest);
    out.add('"');
  }
  if (entry.credential !== undefined) {
    // A small flat object (`{mode, principal?}`): canonicalised whole; a record with one keeps its decisions in its line (`compactLine` shares them only right after the digest).
    let text: string;
    try {
      text = canonicalize(entry.credential);
    } catch {
      return undefined;
    }
    out.add(MEMBER_PREFIXES.credential[out.first ? 0 : 1]);
    out.add(text);
  }
  out.add(MEMBER_PREFIXES.decisions[out.first ? 0 : 1]);
  out.add(decisions);
  if (entry.error !== undefined && !out.addString('error', entry.error)) return undefined;
  if (entry.kind !== undefined && !out.addString('kind', entry.kind)) return undefined;
  if (entry.latencyMs !== undefined && !out.addNumber('latencyMs', entry.latencyMs)) return undefined;
  if (entry.method !== undefined && !out.addString('method', entry.method)) return undefined;
  if (entry.name !== undefined && !out.addString('name', entry.name)) return undefined;
  if (entry.outcome !== undefined && !out.addString('outcome', entry.outcome)) return undefined;
  if (!out.addString('prev', prev)) return undefined;
  if (entry.principal !== undefined && !out.addString('principal', entry.principal)) return undefined;
  if (!out.addNumber('seq', seq)) return undefined;
  if (entry.server !== undefined && !out.addString('server', entry.server)) return undefined;
  if (entry.serverMethod !== undefined && !out.addString('serverMethod', entry.serverMethod)) return undefined;
  if (entry.session !== undefined && !out.addString('session', entry.session)) return undefined;
  if (entry.time !== undefined && !out.addString('time', entry.time)) return undefined;
  out.add('}');
  return out.joined();
}

/**
 * The row of an already chained record's canonical text `line` moved to number `seq` after
 * `prev`: the same content with a new number and link (a pending row committed after another
 * writer extended the chain; see `auditPending.ts`).
 */
export function rechainLine(line: string, seq: number, prev: string): ChainedRow {
  const record = JSON.parse(line) as Record<string, unknown>;
  record['seq'] = seq;
  record['prev'] = prev;
  const text = canonicalize(record);
  const hash = sha256Text(text);
  record['hash'] = hash;
  return { seq, line: text, hash, record: record as unknown as AuditRecord };
}

/** The record a row holds. */
export function parseAuditRow(row: AuditRow): AuditRecord {
  return { ...(JSON.parse(row.line) as Omit<AuditRecord, 'hash'>), hash: rowHash(row) };
}

const EDITED = 'the record does not match its hash (edited)';
const BROKEN_LINK = 'the link to the previous record is broken (a record before it was deleted, inserted, reordered or rewritten)';

/**
 * Checks rows fed oldest first (see the module comment). A row whose hash is not stored (`''`)
 * is checked by the next row's link. When that link alone is broken (both rows in place and
 * numbered as they say, and the next row's own hash confirmed by its stored hash or by the row
 * after it), the row before is named as edited, as a stored hash would have named it.
 */
export class ChainVerifier {
  readonly #problems: { seq: number; problem: string }[] = [];
  #prev = AUDIT_GENESIS;
  #expected = 1;
  #records = 0;
  /** The previous row's number when its hash was not stored and it was in place (numbered as it says), else undefined. */
  #unhashed: number | undefined;
  /** A broken link at `seq` to an unhashed row: the row before it is the edited one unless this row's own hash fails the next link. */
  #suspect: { readonly seq: number; readonly edited: number } | undefined;

  /**
   * `after`: the record the first row follows (its number and hash; a log pruned below it, or an
   * archived segment after the one ending there). Default: none (the first row is record 1 after the genesis hash).
   */
  constructor(after?: { readonly seq: number; readonly hash: string }) {
    if (after !== undefined) {
      this.#prev = after.hash;
      this.#expected = after.seq + 1;
    }
  }

  /** Checks the next row. */
  add(row: AuditRow): void {
    this.#records++;
    const problems = this.#problems;
    const inPlace = row.seq === this.#expected;
    if (!inPlace) problems.push({ seq: row.seq, problem: `expected record ${this.#expected} here: ${row.seq > this.#expected ? 'records are missing (deleted)' : 'a record is out of order'}` });
    let parsed: { seq?: unknown; prev?: unknown } | undefined;
    try {
      parsed = JSON.parse(row.line) as { seq?: unknown; prev?: unknown };
    } catch {
      problems.push({ seq: row.seq, problem: 'the record is not JSON (edited)' });
    }
    const hash = sha256Text(row.line);
    if (row.hash !== '' && hash !== row.hash) problems.push({ seq: row.seq, problem: EDITED });
    const linked = parsed?.prev === this.#prev;
    const suspect = this.#suspect;
    if (suspect !== undefined) {
      this.#suspect = undefined;
      if (linked) problems.push({ seq: suspect.edited, problem: EDITED });
      else problems.push({ seq: suspect.seq, problem: BROKEN_LINK });
    }
    const numbered = parsed?.seq === row.seq;
    if (parsed !== undefined) {
      if (!numbered) problems.push({ seq: row.seq, problem: `the record says it is number ${String(parsed.seq)} (moved or inserted)` });
      if (!linked) {
        const edited = this.#unhashed;
        if (edited === undefined || !inPlace || !numbered) problems.push({ seq: row.seq, problem: BROKEN_LINK });
        else if (row.hash === '') this.#suspect = { seq: row.seq, edited };
        else problems.push(hash === row.hash ? { seq: edited, problem: EDITED } : { seq: row.seq, problem: BROKEN_LINK });
      }
    }
    this.#unhashed = row.hash === '' && inPlace && numbered ? row.seq : undefined;
    this.#prev = row.hash !== '' ? row.hash : hash;
    this.#expected = row.seq + 1;
  }

  /** Adds a problem found by other means (e.g. a head pointer that disagrees with the last row). */
  problem(seq: number, problem: string): void {
    this.#problems.push({ seq, problem });
  }

  /** What was found. */
  result(): AuditVerification {
    if (this.#suspect !== undefined) this.#problems.push({ seq: this.#suspect.edited, problem: EDITED });
    this.#suspect = undefined;
    return { ok: this.#problems.length === 0, records: this.#records, head: this.#prev, problems: [...this.#problems] };
  }
}
