/**
 * The PostgreSQL connection of the shared stores (`switchboard gateway --store postgres://...`):
 * one `pg` pool per gateway instance, the versioned schema migrations run on open, and change
 * notifications (LISTEN/NOTIFY) on a dedicated connection that reconnects by itself.
 *
 * - **Migrations.** A `switchboard_migrations` table records each applied version. Opening
 *   takes a transaction-scoped advisory lock named after the schema, so several instances
 *   starting at once apply each migration exactly once (the others wait, then find it applied);
 *   a database migrated by a newer Switchboard is refused rather than guessed at.
 * - **Schema.** Everything lives in one schema (default `switchboard`), set as the search path
 *   of every connection, so one database can hold several deployments (and tests a fresh one
 *   per run).
 * - **Failures.** A query that cannot reach the server rejects with `ERR_MCP_STORE_UNAVAILABLE`
 *   ({@link storeUnavailable}); the pool drops broken connections and opens new ones, so service
 *   resumes by itself once the server is back.
 *
 * @see https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS
 * @see https://www.postgresql.org/docs/current/sql-notify.html
 * @module
 */
import pg from 'pg';
import { McpError, McpErrorCode, describeError } from '../../util/errors.js';
import { MIGRATIONS } from './pgMigrations.js';

/** Options of {@link PgDatabase.open}. */
export interface PgDatabaseOptions {
  /** The schema holding the tables (created when missing). Default `switchboard`. */
  readonly schema?: string;
  /** Most connections of this instance. Default 10. */
  readonly poolSize?: number;
  /** How long to wait for a connection before failing, in ms. Default 3000. */
  readonly connectTimeoutMs?: number;
  /** The `application_name` its connections show in `pg_stat_activity`. Default `switchboard`. */
  readonly applicationName?: string;
}

/** The error of an operation that could not reach PostgreSQL (or failed there). */
export function storeUnavailable(what: string, error: unknown): McpError {
  if (error instanceof McpError) return error;
  return new McpError(McpErrorCode.StoreUnavailable, `PostgreSQL is unavailable for ${what}: ${describeError(error)}; refused until it is back`, { cause: error });
}

/** A transaction's client. */
export type PgClient = pg.PoolClient;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** One instance's connection to the shared database (see the module comment). */
export class PgDatabase {
  /** The schema of the tables. */
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #config: pg.PoolConfig;
  readonly #stops = new Set<() => void>();
  #closed = false;

  private constructor(schema: string, pool: pg.Pool, config: pg.PoolConfig) {
    this.schema = schema;
    this.#pool = pool;
    this.#config = config;
  }

  /**
   * Connects to `url` (`postgres://user:pass@host:port/db[?schema=name]`, or a `pg` config)
   * and migrates the schema. Rejects with `ERR_MCP_STORE_UNAVAILABLE` when the server cannot be reached.
   */
  static async open(url: string | pg.ClientConfig, options: PgDatabaseOptions = {}): Promise<PgDatabase> {
    // `?schema=name` in the URL picks the schema (the option wins).
    let connection = url;
    let fromUrl: string | undefined;
    if (typeof url === 'string' && URL.canParse(url)) {
      const parsed = new URL(url);
      fromUrl = parsed.searchParams.get('schema') ?? undefined;
      parsed.searchParams.delete('schema');
      connection = parsed.toString();
    }
    const schema = options.schema ?? fromUrl ?? 'switchboard';
    if (!SCHEMA_NAME.test(schema)) throw new McpError(McpErrorCode.InvalidArgument, `the PostgreSQL schema name ${JSON.stringify(schema)} must be lower-case letters, digits and _`);
    const config: pg.PoolConfig = {
      ...(typeof connection === 'string' ? { connectionString: connection } : connection),
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
      options: `-c search_path=${schema}`,
      application_name: options.applicationName ?? 'switchboard',
    };
    const pool = new pg.Pool(config);
    // An idle connection that breaks (server restart, pg_terminate_backend) is dropped by the
    // pool; without a listener its error would end the process.
    pool.on('error', () => undefined);
    const db = new PgDatabase(schema, pool, config);
    try {
      await db.#migrate();
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error instanceof McpError ? error : storeUnavailable('opening the store', error);
    }
    return db;
  }

  /** Runs one statement on any connection. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(what: string, text: string, values?: readonly unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(text, values as unknown[] | undefined)).rows;
    } catch (error) {
      throw storeUnavailable(what, error);
    }
  }

  /** Runs `fn` in one transaction (committed when it resolves, rolled back when it throws). */
  async transaction<T>(what: string, fn: (client: PgClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw storeUnavailable(what, error);
    }
    let broken: unknown;
    // A connection lost while checked out emits 'error' (the pool listens only to idle ones);
    // the query in flight rejects as well, which is what reports it.
    const onError = (error: Error): void => void (broken ??= error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken ??= error;
      if (!(broken instanceof Error && isConnectionError(broken))) await client.query('ROLLBACK').catch(() => undefined);
      throw storeUnavailable(what, error);
    } finally {
      client.off('error', onError);
      // A connection that failed mid-transaction is not put back for reuse.
      client.release(broken instanceof Error && isConnectionError(broken) ? broken : undefined);
    }
  }

  /**
   * Calls `onNotify(payload)` for each NOTIFY on `channel`, and `onReconnect()` after the
   * listening connection was lost and is back (notifications may have been missed meanwhile),
   * and `onListening()` each time LISTEN is in place (the first time included: what happened
   * before it was not heard). Returns a stop function.
   */
  listen(channel: string, onNotify: (payload: string) => void, onReconnect: () => void, onListening?: () => void): () => void {
    let client: pg.Client | undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lost = false;
    const connect = (delayMs: number): void => {
      timer = setTimeout(() => {
        timer = undefined;
        if (stopped) return;
        const c = new pg.Client(this.#config);
        client = c;
        const retry = (): void => {
          if (client !== c || stopped) return;
          client = undefined;
          lost = true;
          c.end().catch(() => undefined);
          connect(Math.min(2000, Math.max(100, delayMs * 2)));
        };
        c.on('error', retry);
        c.on('end', retry);
        c.on('notification', (n) => {
          if (n.channel === channel) onNotify(n.payload ?? '');
        });
        c.connect()
          .then(() => c.query(`LISTEN ${channel}`))
          .then(() => {
            if (!stopped) onListening?.();
            if (lost && !stopped) {
              lost = false;
              onReconnect();
            }
          })
          .catch(retry);
      }, delayMs);
      timer.unref?.();
    };
    connect(0);
    const stop = (): void => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      client?.end().catch(() => undefined);
      client = undefined;
      this.#stops.delete(stop);
    };
    this.#stops.add(stop);
    return stop;
  }

  /** Stops the listeners and closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stop of [...this.#stops]) stop();
    await this.#pool.end();
  }

  async #migrate(): Promise<void> {
    await this.transaction('migrating the schema', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`switchboard.migrations:${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS switchboard_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const applied = new Set((await client.query<{ version: number }>('SELECT version FROM switchboard_migrations')).rows.map((r) => r.version));
      const newest = Math.max(0, ...applied);
      const known = MIGRATIONS.length;
      if (newest > known) {
        throw new McpError(McpErrorCode.StoreCorrupt, `the PostgreSQL schema ${this.schema} is at version ${newest}, written by a newer Switchboard (this one knows ${known}); upgrade this instance`);
      }
      for (const [index, migration] of MIGRATIONS.entries()) {
        const version = index + 1;
        if (applied.has(version)) continue;
        await client.query(migration.sql);
        await client.query('INSERT INTO switchboard_migrations (version, name) VALUES ($1, $2)', [version, migration.name]);
      }
    });
  }

  /** The versions applied (diagnostics, tests). */
  async migrations(): Promise<number[]> {
    return (await this.query<{ version: number }>('reading the migrations', 'SELECT version FROM switchboard_migrations ORDER BY version')).map((r) => r.version);
  }
}

/** True for errors of a lost or unreachable connection (the pool must not reuse it). */
export function isConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || code === '57P01' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE')) return true;
  return /Connection terminated|connection.*closed|not queryable/i.test(error.message);
}
