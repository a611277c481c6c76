/**
 * The shared {@link PinStore} on PostgreSQL: the same two tables as the SQLite store (one row
 * per server identity, one per approved or pending item), each save one transaction.
 * {@link PgPinStore.update} reads and writes one record under a per-identity lock, so an
 * instance never overwrites a change it did not see (an approval on another instance).
 *
 * {@link PgPinStore.watch} is how an approval on one gateway instance reaches the others: every
 * save and removal sends `NOTIFY switchboard_pins` (delivered at commit) naming the schema and
 * the writing instance; each other instance's listener reloads. Its own writes are skipped, as
 * SQLite's `data_version` skips the writer's. After the listening connection was lost the
 * listener runs once more when it is back (notifications may have been missed meanwhile).
 *
 * @see https://www.postgresql.org/docs/current/sql-notify.html
 * @module
 */
import { randomUUID } from 'node:crypto';
import { checkServerPins, type PinStore, type ServerPins } from '../../host/pins/pinStore.js';
import type { PgClient, PgDatabase } from './pgDatabase.js';

const CHANNEL = 'switchboard_pins';

/** Pins in PostgreSQL (see the module comment). */
export class PgPinStore implements PinStore {
  readonly #db: PgDatabase;
  /** Tells this instance's notifications from the others'. */
  readonly #instance = randomUUID();

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  /** Every server's pins. Rejects with `ERR_MCP_STORE_CORRUPT` for malformed rows. */
  async load(): Promise<readonly ServerPins[]> {
    return this.#read((what, text, values) => this.#db.query(what, text, values), undefined);
  }

  /** Replaces one server's record (one transaction) and notifies the other instances. */
  async save(pins: ServerPins): Promise<void> {
    await this.update(pins.identity, () => pins);
  }

  /**
   * Read-modify-write of one server's record in one transaction that first takes a
   * transaction-scoped advisory lock on the identity: every writer of that server (on any
   * instance, and the CLI) waits for the one before it, and reads what it committed. The lock
   * also covers a record not created yet, which `SELECT … FOR UPDATE` could not.
   *
   * @see https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
   */
  async update(identity: string, change: (current: ServerPins | undefined) => ServerPins | undefined): Promise<ServerPins | undefined> {
    return this.#db.transaction('saving pins', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`switchboard_pins|${this.#db.schema}|${identity}`]);
      const query = async <R>(_what: string, text: string, values: readonly unknown[]): Promise<R[]> => (await client.query(text, [...values])).rows as R[];
      const [current] = await this.#read(query, identity);
      const next = change(current);
      if (next === undefined) return current;
      await this.#write(client, next);
      await this.#notify(client);
      return next;
    });
  }

  /** The records (of one identity, or all), checked. */
  async #read(query: <R extends Record<string, unknown>>(what: string, text: string, values: readonly unknown[]) => Promise<R[]>, identity: string | undefined): Promise<ServerPins[]> {
    const where = identity === undefined ? '' : ' WHERE identity = $1';
    const values = identity === undefined ? [] : [identity];
    const servers = await query<{ identity: string; record: Record<string, unknown> }>('loading pins', `SELECT identity, record FROM pin_servers${where} ORDER BY identity`, values);
    const items = await query<{ identity: string; item_key: string; state: string; record: unknown }>('loading pins', `SELECT identity, item_key, state, record FROM pin_items${where} ORDER BY identity, item_key`, values);
    const byServer = new Map<string, { items: Record<string, unknown>; pending: Record<string, unknown> }>();
    for (const row of items) {
      let entry = byServer.get(row.identity);
      if (entry === undefined) byServer.set(row.identity, (entry = { items: {}, pending: {} }));
      const target = row.state === 'approved' ? entry.items : entry.pending;
      Object.defineProperty(target, row.item_key, { value: row.record, enumerable: true, writable: true, configurable: true });
    }
    return servers.map((row) => {
      const own = byServer.get(row.identity) ?? { items: {}, pending: {} };
      return checkServerPins({ ...row.record, identity: row.identity, items: own.items, pending: own.pending }, `PostgreSQL schema ${this.#db.schema}`);
    });
  }

  /** Replaces one server's rows (inside the caller's transaction). */
  async #write(client: PgClient, pins: ServerPins): Promise<void> {
    const { items, pending, identity, ...base } = pins;
    await client.query(
      'INSERT INTO pin_servers (identity, alias, record, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (identity) DO UPDATE SET alias = excluded.alias, record = excluded.record, updated_at = excluded.updated_at',
      [identity, pins.alias, JSON.stringify(base), pins.updatedAt],
    );
    await client.query('DELETE FROM pin_items WHERE identity = $1', [identity]);
    const rows = [...Object.entries(items).map(([key, item]) => [key, 'approved', item] as const), ...Object.entries(pending).map(([key, item]) => [key, 'pending', item] as const)];
    if (rows.length > 0) {
      await client.query('INSERT INTO pin_items (identity, item_key, state, record) SELECT $1, k, s, r::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS t(k, s, r)', [
        identity,
        rows.map((r) => r[0]),
        rows.map((r) => r[1]),
        rows.map((r) => JSON.stringify(r[2])),
      ]);
    }
  }

  /** Forgets a server identity and its items, and notifies the other instances. */
  async remove(identity: string): Promise<void> {
    await this.#db.transaction('removing pins', async (client) => {
      await client.query('DELETE FROM pin_servers WHERE identity = $1', [identity]);
      await this.#notify(client);
    });
  }

  /** Runs `listener` after another instance committed a change (see the module comment). */
  watch(listener: () => void): () => void {
    const prefix = `${this.#db.schema}|`;
    return this.#db.listen(
      CHANNEL,
      (payload) => {
        if (payload.startsWith(prefix) && payload !== `${prefix}${this.#instance}`) listener();
      },
      listener,
    );
  }

  async #notify(client: { query(text: string, values: unknown[]): Promise<unknown> }): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [CHANNEL, `${this.#db.schema}|${this.#instance}`]);
  }
}
