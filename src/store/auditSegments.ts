/**
 * The files of an audit archive (`auditArchive.ts`): sealed segments of the hash chain.
 *
 * - A segment is a range of records `first..last` written as gzip'd JSONL, one stored canonical
 *   line per record (`seg-<first>-<last>.jsonl.gz`, numbers zero-padded to 12 digits so the
 *   names sort), mode 0600.
 * - Its manifest (`seg-<first>-<last>.manifest.json`) is a checkpoint keyed with the anchor key
 *   (kind `audit-segment`, the log's name as the store; see `anchor/anchorFile.ts`): the range,
 *   the count, the hash before the first record (`prev`) and of the last (`hash`), and the
 *   SHA-256 of the uncompressed lines (`digest`). Without the key neither a segment nor its
 *   manifest can be rewritten unseen; a segment copied from another log names another store.
 * - Files are written to a temporary name, synced, renamed, and the folder synced: a crash
 *   leaves either the whole file or none (a leftover `*.tmp` is ignored and overwritten).
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { ChainVerifier, rowHash, sha256Text, type AuditRow } from './auditChain.js';
import { AnchorError, type AnchorFolder } from './anchor/anchorFile.js';

/** What a segment's manifest says about it (its checkpoint's body). */
export interface SegmentManifest {
  readonly first: number;
  readonly last: number;
  readonly count: number;
  /** The hash of record `first - 1` (the genesis hash for record 1). */
  readonly prev: string;
  /** The hash of record `last`. */
  readonly hash: string;
  /** `sha256:` of the uncompressed JSONL (every line followed by `\n`). */
  readonly digest: string;
  /** The segment's file name (in the same folder). */
  readonly file: string;
  /** The first and last record's `time`. */
  readonly firstTime: string;
  readonly lastTime: string;
  /** When it was sealed (ISO 8601, UTC). */
  readonly sealed: string;
}

/** One problem found in an archive: the record where it shows (0 when none), and what. */
export interface ArchiveProblem {
  readonly seq: number;
  readonly problem: string;
}

const SEGMENT = /^seg-(\d{12})-(\d{12})\.(jsonl\.gz|manifest\.json)$/;
const pad = (n: number): string => String(n).padStart(12, '0');

/** The segment file and manifest names of records `first..last`. */
export function segmentNames(first: number, last: number): { readonly file: string; readonly manifest: string } {
  const base = `seg-${pad(first)}-${pad(last)}`;
  return { file: `${base}.jsonl.gz`, manifest: `${base}.manifest.json` };
}

/** Creates the archive folder (mode 0700) when missing. */
export async function ensureArchiveDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** The segment files and manifests in `dir`, by name (other files are not the archive's). */
export async function listSegmentFiles(dir: string): Promise<{ readonly files: string[]; readonly manifests: string[] }> {
  const names = (await readdir(dir)).filter((n) => SEGMENT.test(n)).sort();
  return { files: names.filter((n) => n.endsWith('.jsonl.gz')), manifests: names.filter((n) => n.endsWith('.manifest.json')) };
}

/**
 * Reads and checks manifest `name` of log `store` in `dir`: its key, and that it names the
 * range and file its name says.
 *
 * @returns the manifest, or a sentence saying why it is not a valid one.
 */
export async function readManifest(folder: AnchorFolder, store: string, dir: string, name: string): Promise<SegmentManifest | string> {
  let body: SegmentManifest;
  try {
    body = folder.unseal<SegmentManifest>('audit-segment', store, await readFile(join(dir, name), 'utf8'), `The manifest ${name}`);
  } catch (error) {
    if (error instanceof AnchorError) return error.message;
    throw error;
  }
  const names = segmentNames(body.first, body.last);
  if (names.manifest !== name || names.file !== body.file || body.count !== body.last - body.first + 1) return `The manifest ${name} names another range or file: it was renamed`;
  return body;
}

/** Syncs a file or folder (fsync; a folder's entry changes survive a crash once it returns). */
async function syncPath(path: string, flags: 'r' | 'r+' = 'r'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Rows of the live log to seal: fed page by page to {@link SegmentWriter.add}. */
export class SegmentWriter {
  readonly #dir: string;
  readonly #first: number;
  readonly #prev: string;
  readonly #temp: string;
  readonly #gzip = createGzip();
  readonly #out: ReturnType<typeof createWriteStream>;
  readonly #digest = createHash('sha256');
  #last = 0;
  #hash = '';
  #firstTime = '';
  #lastTime = '';

  /** Starts a segment whose first record is `first`, after the record whose hash is `prev`. */
  constructor(dir: string, first: number, prev: string) {
    this.#dir = dir;
    this.#first = first;
    this.#prev = prev;
    this.#temp = join(dir, `.seg-${pad(first)}.${randomBytes(6).toString('hex')}.tmp`);
    this.#out = createWriteStream(this.#temp, { mode: 0o600 });
    this.#gzip.pipe(this.#out);
  }

  /** Records written so far. */
  get count(): number {
    return this.#last === 0 ? 0 : this.#last - this.#first + 1;
  }

  /** Appends `row` (the next record) with its `time`; resolves when the stream can take more. */
  async add(row: AuditRow, time: string): Promise<void> {
    const text = `${row.line}\n`;
    this.#digest.update(text);
    if (this.#last === 0) this.#firstTime = time;
    this.#last = row.seq;
    this.#hash = rowHash(row);
    this.#lastTime = time;
    if (!this.#gzip.write(text)) await new Promise<void>((resolve) => this.#gzip.once('drain', resolve));
  }

  /** Drops the temporary file (nothing was sealed). */
  async abandon(): Promise<void> {
    this.#gzip.end();
    await finished(this.#out).catch(() => undefined);
    await rm(this.#temp, { force: true });
  }

  /**
   * Finishes the file, syncs it, renames it into place and writes its manifest keyed for log
   * `store` (both synced, and the folder). Resolves with the manifest.
   */
  async seal(folder: AnchorFolder, store: string, now: () => number): Promise<SegmentManifest> {
    this.#gzip.end();
    await finished(this.#out);
    await syncPath(this.#temp, 'r+');
    const names = segmentNames(this.#first, this.#last);
    await rename(this.#temp, join(this.#dir, names.file));
    const manifest: SegmentManifest = {
      first: this.#first,
      last: this.#last,
      count: this.count,
      prev: this.#prev,
      hash: this.#hash,
      digest: `sha256:${this.#digest.digest('hex')}`,
      file: names.file,
      firstTime: this.#firstTime,
      lastTime: this.#lastTime,
      sealed: new Date(now()).toISOString(),
    };
    // The manifest likewise: a temporary file, synced (on the thread pool), renamed; then the folder.
    const temp = `${this.#temp}.manifest`;
    await writeFile(temp, `${folder.seal('audit-segment', store, manifest)}\n`, { mode: 0o600 });
    await syncPath(temp, 'r+');
    await rename(temp, join(this.#dir, names.manifest));
    await syncPath(this.#dir);
    return manifest;
  }
}

/**
 * Re-reads segment `manifest`'s file in `dir` and checks it against the manifest: its lines'
 * digest, count, and chain (each hash, link and number, from `prev` to `hash`). Problems name
 * the record where they show.
 */
export async function checkSegmentFile(dir: string, manifest: SegmentManifest): Promise<ArchiveProblem[]> {
  const problems: ArchiveProblem[] = [];
  const where = `segment ${manifest.file}`;
  const verifier = new ChainVerifier({ seq: manifest.first - 1, hash: manifest.prev });
  const digest = createHash('sha256');
  let seq = manifest.first - 1;
  let last = manifest.prev;
  try {
    const lines = createInterface({ input: createReadStream(join(dir, manifest.file)).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) {
      digest.update(`${line}\n`);
      last = sha256Text(line);
      verifier.add({ seq: ++seq, line, hash: last });
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    problems.push({ seq: manifest.first, problem: code === 'ENOENT' ? `${where} is missing (its manifest is there)` : `${where} cannot be read (${error instanceof Error ? error.message : String(error)}): it was altered or truncated` });
    return problems;
  }
  for (const p of verifier.result().problems) problems.push({ seq: p.seq, problem: `${where}: ${p.problem}` });
  if (`sha256:${digest.digest('hex')}` !== manifest.digest) problems.push({ seq: manifest.first, problem: `${where} does not match its manifest's digest: it was altered` });
  if (seq !== manifest.last) problems.push({ seq: Math.min(seq + 1, manifest.last), problem: `${where} holds records ${manifest.first}..${seq}, its manifest says ..${manifest.last}: records were removed or added` });
  else if (last !== manifest.hash) problems.push({ seq: manifest.last, problem: `${where}: the last record's hash is not the manifest's: it was altered` });
  return problems;
}

/** The hash of record `seq` as segment `manifest`'s file in `dir` holds it (undefined when the file does not hold it). */
export async function segmentRecordHash(dir: string, manifest: SegmentManifest, seq: number): Promise<string | undefined> {
  if (seq < manifest.first || seq > manifest.last) return undefined;
  let at = manifest.first;
  const lines = createInterface({ input: createReadStream(join(dir, manifest.file)).pipe(createGunzip()), crlfDelay: Infinity });
  try {
    for await (const line of lines) if (at++ === seq) return sha256Text(line);
  } finally {
    lines.close();
  }
  return undefined;
}
