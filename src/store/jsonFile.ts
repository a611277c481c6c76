/**
 * One JSON document in one file, written atomically and privately.
 *
 * - Atomic: each write goes to a fresh temporary file in the same folder (created exclusively,
 *   mode 0600), is flushed to disk, then renamed over the old file. A crash or a full disk
 *   leaves the previous file intact; the temporary file is removed on failure.
 * - Private: the folder is created with mode 0700, the file has mode 0600.
 * - Errors are typed: an unreadable or non-JSON file is {@link McpError}
 *   `ERR_MCP_STORE_CORRUPT` (never a crash); a failed write is `ERR_MCP_STORE_WRITE_FAILED`
 *   whose message says "disk full" for `ENOSPC`; `cause` is the underlying error.
 * - Writes of one `JsonFile` are serialised; `update` is a read-modify-write within that order.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import * as fsPromises from 'node:fs/promises';
import { dirname } from 'node:path';
import { McpError, McpErrorCode } from '../util/errors.js';

/** The file operations used (injectable, e.g. to simulate a full disk in tests). */
export interface FileOps {
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  mkdir(path: string, options: { recursive: true; mode: number }): Promise<string | undefined>;
  chmod(path: string, mode: number): Promise<void>;
  open(path: string, flags: string, mode: number): Promise<{ writeFile(data: string, encoding: 'utf8'): Promise<void>; sync(): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

const nodeOps: FileOps = fsPromises;

/** Options of {@link JsonFile}. */
export interface JsonFileOptions {
  /** File operations; default `node:fs/promises`. */
  readonly fs?: FileOps;
}

/** A JSON document stored in `path`. */
export class JsonFile {
  /** The file. */
  readonly path: string;
  readonly #fs: FileOps;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string, options: JsonFileOptions = {}) {
    this.path = path;
    this.#fs = options.fs ?? nodeOps;
  }

  /** The stored value, or `undefined` when the file does not exist. */
  async read(): Promise<unknown> {
    let text: string;
    try {
      text = await this.#fs.readFile(this.path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw new McpError(McpErrorCode.StoreCorrupt, `cannot read ${this.path}: ${errorCode(error) ?? String(error)}`, { cause: error });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new McpError(McpErrorCode.StoreCorrupt, `${this.path} is not valid JSON (was it edited by hand? fix or delete it)`, { cause: error });
    }
  }

  /** Replaces the stored value (atomically, after earlier writes). */
  write(value: unknown): Promise<void> {
    return this.#enqueue(() => this.#write(value));
  }

  /** Reads, applies `change` and writes the result, ordered with other writes. */
  update(change: (current: unknown) => unknown): Promise<void> {
    return this.#enqueue(async () => this.#write(change(await this.read())));
  }

  /** Deletes the file (ordered with other writes). Resolves `false` when there was none. */
  remove(): Promise<boolean> {
    return this.#enqueue(async () => {
      try {
        await this.#fs.unlink(this.path);
        return true;
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return false;
        throw new McpError(McpErrorCode.StoreWriteFailed, `cannot delete ${this.path}: ${errorCode(error) ?? String(error)}`, { cause: error });
      }
    });
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #write(value: unknown): Promise<void> {
    const text = `${JSON.stringify(value, null, 2)}\n`;
    const folder = dirname(this.path);
    const temp = `${this.path}.${randomUUID()}.tmp`;
    let opened = false;
    try {
      const created = await this.#fs.mkdir(folder, { recursive: true, mode: 0o700 });
      // mkdir's mode is filtered by the umask; make the folder we created private for sure.
      if (created !== undefined) await this.#fs.chmod(folder, 0o700);
      const handle = await this.#fs.open(temp, 'wx', 0o600);
      opened = true;
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.#fs.rename(temp, this.path);
    } catch (error) {
      if (opened) await this.#fs.unlink(temp).catch(() => undefined);
      const code = errorCode(error);
      const reason = code === 'ENOSPC' ? 'disk full' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(error));
      throw new McpError(McpErrorCode.StoreWriteFailed, `cannot write ${this.path}: ${reason}; the previous file is unchanged`, { cause: error });
    }
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
