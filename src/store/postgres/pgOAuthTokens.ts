/**
 * Downstream OAuth credentials in PostgreSQL, shared by every gateway instance: one row per
 * server identity (`oauth_servers`), holding what that server needs and nothing of any other,
 * edited under a row lock so two instances refreshing at once do not lose a write. The
 * per-identity binding is the files' ({@link boundTokenStore}).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#token-passthrough
 * @module
 */
import type { TokenStore } from '../../auth/client/tokenStore.js';
import { canonicalServerUrl } from '../../host/canonicalServerUrl.js';
import { boundTokenStore, checkServerTokens, type ServerTokenOptions } from '../serverTokens.js';
import type { PgDatabase } from './pgDatabase.js';

/** OAuth credentials by server identity in PostgreSQL. */
export class PgOAuthTokens {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  /** A `TokenStore` bound to the identity of `url`. */
  forServer(url: string, options: ServerTokenOptions = {}): TokenStore {
    const identity = canonicalServerUrl(url);
    const where = `the OAuth record of ${identity} in PostgreSQL schema ${this.#db.schema}`;
    return boundTokenStore(
      url,
      {
        where,
        read: async () => (await this.#db.query<{ record: unknown }>('reading OAuth tokens', 'SELECT record FROM oauth_servers WHERE identity = $1', [identity]))[0]?.record,
        update: (edit) =>
          this.#db.transaction('saving OAuth tokens', async (client) => {
            // The row lock serialises concurrent edits; a missing row is created empty first.
            await client.query("INSERT INTO oauth_servers (identity, record) VALUES ($1, 'null'::jsonb) ON CONFLICT (identity) DO NOTHING", [identity]);
            const current = (await client.query<{ record: unknown }>('SELECT record FROM oauth_servers WHERE identity = $1 FOR UPDATE', [identity])).rows[0]?.record;
            await client.query('UPDATE oauth_servers SET record = $2 WHERE identity = $1', [identity, JSON.stringify(edit(current))]);
          }),
      },
      options,
    );
  }

  /** True when tokens are stored for the server at `url`. */
  async hasTokens(url: string): Promise<boolean> {
    const identity = canonicalServerUrl(url);
    const rows = await this.#db.query<{ record: unknown }>('reading OAuth tokens', 'SELECT record FROM oauth_servers WHERE identity = $1', [identity]);
    return checkServerTokens(rows[0]?.record, `the OAuth record of ${identity}`, identity).tokens !== undefined;
  }

  /** Deletes everything stored for the server at `url` (logout). Resolves `false` when nothing was. */
  async remove(url: string): Promise<boolean> {
    const rows = await this.#db.query('removing OAuth tokens', 'DELETE FROM oauth_servers WHERE identity = $1 RETURNING identity', [canonicalServerUrl(url)]);
    return rows.length > 0;
  }
}
