/**
 * The cluster's policy in PostgreSQL (`cluster_policy`, one row): the newest published version
 * of the `switchboard.policy` section and the servers' labels, with its digest, the instance
 * that published it and when. A publication replaces the row with the next version in one
 * transaction and sends `NOTIFY switchboard_policy` (delivered at commit) with the schema and
 * the version; every instance then reads the row (see `ClusterPolicy` in the host layer).
 * The listener also runs each time LISTEN is (again) in place, since what was published before
 * was not heard.
 *
 * @see https://www.postgresql.org/docs/current/sql-notify.html
 * @module
 */
import type { PublishedPolicy, SharedPolicyStore } from '../../host/clusterPolicy.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import type { PgDatabase } from './pgDatabase.js';

const CHANNEL = 'switchboard_policy';

interface Row {
  version: string;
  digest: string;
  document: unknown;
  instance: string;
  published_at: string;
}

/** The cluster policy in PostgreSQL (see the module comment). */
export class PgPolicyStore implements SharedPolicyStore {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  async current(): Promise<PublishedPolicy | undefined> {
    const rows = await this.#db.query<Row>('reading the cluster policy', 'SELECT version, digest, document, instance, published_at FROM cluster_policy');
    return rows[0] === undefined ? undefined : this.#published(rows[0]);
  }

  async publish(document: unknown, digest: string, instance: string): Promise<PublishedPolicy> {
    return this.#db.transaction('publishing the cluster policy', async (client) => {
      const current = (await client.query<Row>('SELECT version, digest, document, instance, published_at FROM cluster_policy FOR UPDATE')).rows[0];
      if (current?.digest === digest) return this.#published(current);
      const row = (
        await client.query<Row>(
          `INSERT INTO cluster_policy (version, digest, document, instance, published_at) VALUES (1, $1, $2, $3, $4)
           ON CONFLICT (id) DO UPDATE SET version = cluster_policy.version + 1, digest = excluded.digest, document = excluded.document, instance = excluded.instance, published_at = excluded.published_at
           RETURNING version, digest, document, instance, published_at`,
          [digest, JSON.stringify(document), instance, Date.now()],
        )
      ).rows[0] as Row;
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, `${this.#db.schema}|${row.version}`]);
      return this.#published(row);
    });
  }

  watch(onChange: () => void): () => void {
    const prefix = `${this.#db.schema}|`;
    // Also each time LISTEN is in place: a version published before it was not heard.
    return this.#db.listen(CHANNEL, (payload) => void (payload.startsWith(prefix) && onChange()), onChange, onChange);
  }

  #published(row: Row): PublishedPolicy {
    const version = Number(row.version);
    if (!Number.isSafeInteger(version) || version < 1 || typeof row.digest !== 'string') throw new McpError(McpErrorCode.StoreCorrupt, `the cluster policy in PostgreSQL schema ${this.#db.schema} is damaged (version ${String(row.version)})`);
    return { version, digest: row.digest, document: row.document, instance: row.instance, publishedAt: Number(row.published_at) };
  }
}
