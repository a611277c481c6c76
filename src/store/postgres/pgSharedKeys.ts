/**
 * Keys every gateway instance of one deployment must share, kept in PostgreSQL
 * (`shared_keys`). The first instance to ask for a key creates it (32 random bytes);
 * every later one, and every instance after a restart, reads the same bytes.
 *
 * Used for the sealing key of MRTR `requestState`: a 2026-07-28 request that needs input
 * gets a sealed state from one instance, and the client's retry may reach any other behind
 * the load balancer, which must be able to open it.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/utilities/input-required
 * @module
 */
import { randomBytes } from 'node:crypto';
import { McpError, McpErrorCode } from '../../util/errors.js';
import type { PgDatabase } from './pgDatabase.js';

/** The length of every shared key, in bytes (AES-256). */
export const SHARED_KEY_BYTES = 32;

/**
 * The key `name` of this deployment: created with `INSERT … ON CONFLICT DO NOTHING` by the
 * first instance, so instances starting together agree on one, then read back.
 * A stored key of the wrong length is refused (`ERR_MCP_STORE_CORRUPT`), never replaced.
 */
export async function sharedKey(db: PgDatabase, name: string): Promise<Uint8Array> {
  const what = `the shared key ${name} in PostgreSQL schema ${db.schema}`;
  await db.query(what, 'INSERT INTO shared_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(SHARED_KEY_BYTES)]);
  const rows = await db.query<{ value: Buffer }>(what, 'SELECT value FROM shared_keys WHERE name = $1', [name]);
  const value = rows[0]?.value;
  if (value === undefined || value.byteLength !== SHARED_KEY_BYTES) {
    throw new McpError(McpErrorCode.StoreCorrupt, `${what} is missing or not ${SHARED_KEY_BYTES} bytes long; it is not replaced (states sealed with it would stop opening): restore it or delete the row on purpose`);
  }
  return new Uint8Array(value);
}
