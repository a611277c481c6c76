/**
 * The integrity anchor of the state stores, kept apart from them: a folder outside the state
 * folder (per user; where is the CLI's choice, see `cli/stateAnchors.ts`) holding
 *
 * - `anchor.key`: 32 random bytes (mode 0600), the HMAC key. The servers the gateway fronts are
 *   not given this folder, so they can neither read the key nor forge a checkpoint;
 * - one checkpoint file per store (`<digest of the store's name>.<kind>.json`): what the store
 *   held when it was last written (the pins: a digest per server record; the audit log: the
 *   head's number and hash), with an HMAC-SHA256 over its canonical text (RFC 8785).
 *
 * A store moved away, replaced by an older copy, truncated or emptied no longer matches its
 * checkpoint: the opener refuses it (see `pinAnchor.ts`, `auditAnchor.ts`) until a person
 * re-anchors on purpose. A checkpoint whose HMAC does not verify is an {@link AnchorError} too.
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Text } from '../auditChain.js';
import { canonicalize } from '../../util/canonicalJson.js';
import { McpError, McpErrorCode } from '../../util/errors.js';

/**
 * The kinds of checkpoint: a store's (`pins`, `audit`: its head), and the audit archive's
 * (`audit-pruned`: the last record archived before the live log was pruned; `audit-segment`: a
 * sealed segment's manifest, kept beside the segment rather than in this folder).
 */
export type AnchorKind = 'pins' | 'audit' | 'audit-pruned' | 'audit-segment';

/** A store that does not match its anchor (or an anchor that does not verify): the message says what and how to resolve it. */
export class AnchorError extends McpError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(McpErrorCode.StoreCorrupt, message, options);
  }
}

/** A checkpoint as stored: its body and the HMAC over `{ v, kind, store, body }`. */
interface AnchorText<B> {
  readonly v: 1;
  readonly kind: AnchorKind;
  readonly store: string;
  readonly body: B;
  readonly mac: string;
}

/** The anchor folder: its key, and the checkpoint files of the stores. */
export class AnchorFolder {
  /** The folder. */
  readonly dir: string;
  readonly #key: Buffer;

  private constructor(dir: string, key: Buffer) {
    this.dir = dir;
    this.#key = key;
  }

  /** Opens `dir` (created with mode 0700), reading `anchor.key` or generating it (mode 0600). */
  static open(dir: string): AnchorFolder {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'anchor.key');
    let key: Buffer | undefined;
    try {
      key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (key === undefined) {
      key = randomBytes(32);
      try {
        // 'wx': another process that created it first wins; its key is read back.
        writeFileAtomic(file, `${key.toString('base64url')}\n`, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
      }
    }
    if (key.length < 32) throw new AnchorError(`The anchor key ${file} is shorter than 32 bytes: it was not written by Switchboard. Move it away to make a new one (every store is then re-anchored on purpose: switchboard anchor reset).`);
    return new AnchorFolder(dir, key);
  }

  /** The checkpoint file of store `store` (a path or URL naming it) of `kind`. */
  fileOf(kind: AnchorKind, store: string): string {
    return join(this.dir, `${sha256Text(store).slice('sha256:'.length, 'sha256:'.length + 32)}.${kind}.json`);
  }

  /**
   * The checkpoint of `store`, or undefined when none was written.
   *
   * @throws AnchorError when the file is not a checkpoint of that store or its HMAC does not verify.
   */
  read<B>(kind: AnchorKind, store: string): B | undefined {
    const file = this.fileOf(kind, store);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return this.unseal<B>(kind, store, text, `The anchor ${file}`, resetHint());
  }

  /**
   * The body of a checkpoint's text (as {@link seal} made it) of `kind` and `store`.
   *
   * @throws AnchorError (`what` ... `hint`) when it is not JSON, is of another kind or store, or its HMAC does not verify.
   */
  unseal<B>(kind: AnchorKind, store: string, text: string, what: string, hint = ''): B {
    let parsed: AnchorText<B>;
    try {
      parsed = JSON.parse(text) as AnchorText<B>;
    } catch (error) {
      throw new AnchorError(`${what} of ${store} is not JSON: it was altered.${hint !== '' ? ` ${hint}` : ''}`, { cause: error });
    }
    const expected = this.#mac(kind, store, parsed.body);
    const given = typeof parsed.mac === 'string' ? Buffer.from(parsed.mac, 'base64url') : Buffer.alloc(0);
    if (parsed.v !== 1 || parsed.kind !== kind || parsed.store !== store || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AnchorError(`${what} of ${store} does not verify with the anchor key: it was altered or copied from elsewhere.${hint !== '' ? ` ${hint}` : ''}`);
    }
    return parsed.body;
  }

  /** The text of a checkpoint of `store` of `kind` with `body`, keyed with the anchor key (one line, no newline). */
  seal<B>(kind: AnchorKind, store: string, body: B): string {
    const text: AnchorText<B> = { v: 1, kind, store, body, mac: this.#mac(kind, store, body).toString('base64url') };
    return JSON.stringify(text);
  }

  /** Writes the checkpoint of `store` (a new file renamed over the old, synced). */
  write<B>(kind: AnchorKind, store: string, body: B): void {
    writeFileAtomic(this.fileOf(kind, store), `${this.seal(kind, store, body)}\n`, 'w');
  }

  /**
   * {@link write} off the event loop: the file's write, sync and rename run on libuv's thread
   * pool (a checkpoint taken while requests are served does not stall them for a disk sync).
   */
  async writeAsync<B>(kind: AnchorKind, store: string, body: B): Promise<void> {
    const file = this.fileOf(kind, store);
    const temp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
    try {
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(`${this.seal(kind, store, body)}\n`);
        await handle.sync();
        await handle.chmod(0o600);
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** HMAC-SHA256 of a checkpoint's canonical text. */
  #mac(kind: AnchorKind, store: string, body: unknown): Buffer {
    return createHmac('sha256', this.#key).update(canonicalize({ v: 1, kind, store, body })).digest();
  }
}

/** The sentence every refusal ends with: how a person accepts the stores as they are now. */
export function resetHint(config?: string): string {
  return `If you moved or replaced the state on purpose, accept the stores as they are now with \`switchboard anchor reset${config !== undefined ? ` --config ${config}` : ''}\` (the audit log records the reset).`;
}

/**
 * Writes `text` to `file` with mode 0600: to a temporary file, synced, then renamed over `file`
 * (`flag: 'wx'`: only when `file` does not exist yet, failing with `EEXIST` otherwise).
 */
function writeFileAtomic(file: string, text: string, flag: 'w' | 'wx'): void {
  const temp = flag === 'wx' ? file : `${file}.${randomBytes(8).toString('hex')}.tmp`;
  const fd = openSync(temp, flag, 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(temp, 0o600);
  if (temp !== file) renameSync(temp, file);
}
