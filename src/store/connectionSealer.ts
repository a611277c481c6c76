/**
 * Sealing of the per-user connection secrets at rest (the tokens of a {@link Connection}, the
 * PKCE verifier of a pending sign-in): AES-256-GCM under the gateway's connections key, with
 * additional authenticated data that binds each sealed value to where it belongs (the
 * principal and server of its row, the hashed `state` of a sign-in). A row copied to another
 * principal, a flipped byte or another deployment's key never opens: {@link ConnectionSealError},
 * never other tokens or garbage.
 *
 * The key (32 bytes) lives outside the database: a file in the gateway's state folder
 * (`connections.key`, mode 0600, created on first use; a protected path no fronted server may be
 * asked to read) or `SWITCHBOARD_CONNECTIONS_KEY`. A database dump alone opens nothing.
 *
 * Sealed layout: `0x01` (format) | key id (8 bytes) | IV (12 bytes) | ciphertext | tag (16 bytes).
 * The key id (a SHA-256 of the key, cut) tells a wrong key from tampering in the error.
 *
 * @see https://nvlpubs.nist.gov/nistpubs/Legacy/SP/nistspecialpublication800-38d.pdf
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { platform } from 'node:os';
import { dirname, join } from 'node:path';
import { McpError, McpErrorCode } from '../util/errors.js';

/** The key file's name in the state folder. */
export const CONNECTIONS_KEY_FILE = 'connections.key';
/** The key's length in bytes (AES-256). */
export const CONNECTIONS_KEY_BYTES = 32;

const FORMAT = 1;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER = 1 + KEY_ID_BYTES + IV_BYTES;

/** Why a sealed value did not open. */
export type ConnectionSealFailure = 'wrong-key' | 'tampered' | 'bad-key';

/**
 * A stored connection secret that cannot be opened: sealed under another key (`wrong-key`),
 * changed or moved to another row (`tampered`), or a key that is not 32 bytes (`bad-key`).
 * Code `ERR_MCP_STORE_CORRUPT`.
 */
export class ConnectionSealError extends McpError {
  /** What went wrong. */
  readonly reason: ConnectionSealFailure;

  constructor(reason: ConnectionSealFailure, message: string, options?: { cause?: unknown }) {
    super(McpErrorCode.StoreCorrupt, message, options);
    this.reason = reason;
  }
}

/** Seals and opens values under one connections key. */
export class ConnectionSealer {
  /** The key's id (hex), shown in errors and on the CLI; not secret. */
  readonly keyId: string;
  readonly #key: Buffer;
  readonly #id: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
    this.#id = createHash('sha256').update('switchboard connections key id\0').update(key).digest().subarray(0, KEY_ID_BYTES);
    this.keyId = this.#id.toString('hex');
  }

  /** A sealer for `key` (32 bytes); {@link ConnectionSealError} `bad-key` otherwise. */
  static fromKey(key: Uint8Array): ConnectionSealer {
    if (key.byteLength !== CONNECTIONS_KEY_BYTES) throw new ConnectionSealError('bad-key', `the connections key must be ${CONNECTIONS_KEY_BYTES} bytes, not ${key.byteLength}`);
    return new ConnectionSealer(Buffer.from(key));
  }

  /** Seals `plaintext` bound to `context` (the same context is needed to open it). */
  seal(plaintext: string, context: readonly string[]): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(aad(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT]), this.#id, iv, body, cipher.getAuthTag()]);
  }

  /** Opens what {@link seal} made under `context`; {@link ConnectionSealError} when it does not open. */
  open(sealed: Uint8Array, context: readonly string[], what: string): string {
    const bytes = Buffer.from(sealed);
    if (bytes.byteLength < HEADER + TAG_BYTES || bytes[0] !== FORMAT) throw new ConnectionSealError('tampered', `${what} is not a sealed value of this Switchboard (wrong length or format)`);
    const id = bytes.subarray(1, 1 + KEY_ID_BYTES);
    if (!id.equals(this.#id)) {
      throw new ConnectionSealError(
        'wrong-key',
        `${what} was sealed with the connections key ${id.toString('hex')}, and this gateway has the key ${this.keyId}: give every instance the same key (the state folder's ${CONNECTIONS_KEY_FILE} or SWITCHBOARD_CONNECTIONS_KEY), or revoke the connection so its owner signs in again`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(1 + KEY_ID_BYTES, HEADER));
    decipher.setAAD(aad(context));
    decipher.setAuthTag(bytes.subarray(bytes.byteLength - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(HEADER, bytes.byteLength - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new ConnectionSealError('tampered', `${what} does not open under its own row (changed, or copied from another principal or server): refused`, { cause: error });
    }
  }
}

/** The additional authenticated data of `context`: unambiguous (JSON), versioned. */
function aad(context: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify(['switchboard.connections.v1', ...context]), 'utf8');
}

/**
 * Reads the connections key from a text value (`SWITCHBOARD_CONNECTIONS_KEY`): 64 hex digits or
 * base64/base64url of 32 bytes. {@link ConnectionSealError} `bad-key` otherwise.
 */
export function parseConnectionsKey(text: string, where: string): Uint8Array {
  const value = text.trim();
  let bytes: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(value)) bytes = Buffer.from(value, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (bytes?.byteLength !== CONNECTIONS_KEY_BYTES) {
    throw new ConnectionSealError('bad-key', `${where} must hold ${CONNECTIONS_KEY_BYTES} random bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`);
  }
  return new Uint8Array(bytes);
}

/** The key file of `stateDir`. */
export function connectionsKeyFile(stateDir: string): string {
  return join(stateDir, CONNECTIONS_KEY_FILE);
}

/**
 * The key in `file`, created on first use (32 random bytes, base64, mode 0600, exclusive create:
 * two processes starting together end up with the one that won). An existing file that does not
 * hold a key is refused, never replaced (the connections sealed under it would be lost), and so
 * is one other users may read (mode wider than 0600).
 */
export function loadConnectionsKeyFile(file: string): Uint8Array {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, `${randomBytes(CONNECTIONS_KEY_BYTES).toString('base64')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const fd = openSync(file, 'r');
  try {
    const mode = fstatSync(fd).mode & 0o777;
    if (platform() !== 'win32' && (mode & 0o077) !== 0) {
      throw new ConnectionSealError('bad-key', `the connections key ${file} can be read by other users (mode ${mode.toString(8)}): \`chmod 600\` it (and consider the connections exposed: revoke them)`);
    }
    return parseConnectionsKey(readFileSync(fd, 'utf8'), `the connections key file ${file}`);
  } finally {
    closeSync(fd);
  }
}
