/**
 * The real PostgreSQL and Redis the store contract suites run against, each test file on a
 * fresh schema (`t_<random>`) or key prefix (`sbtest:<random>:`), dropped again at the end.
 *
 * Where they are: `SWITCHBOARD_TEST_POSTGRES` (default `postgres://<user>@127.0.0.1:5432/switchboard_test`)
 * and `SWITCHBOARD_TEST_REDIS` (default `redis://127.0.0.1:6379`); `.ci/run` starts both and
 * creates the database. When one cannot be reached the suite FAILS with a message saying so
 * (never skips): a store that was not tested is not known to work.
 *
 * {@link TcpGate} is a TCP relay the failure tests put between a store and its server, to cut
 * every connection and refuse new ones (the server "down") and to let them through again,
 * without touching the server other tests use.
 */
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { userInfo } from 'node:os';
import { after } from 'node:test';
import pg from 'pg';
import { PgDatabase, type PgDatabaseOptions } from '../../../src/store/postgres/pgDatabase.js';
import { RedisCache, type RedisCacheOptions } from '../../../src/store/redis/redisCache.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';

/** The test database's URL. */
export const POSTGRES_URL = process.env['SWITCHBOARD_TEST_POSTGRES'] ?? `postgres://${userInfo().username}@127.0.0.1:5432/switchboard_test`;
/** The test Redis's URL. */
export const REDIS_URL = process.env['SWITCHBOARD_TEST_REDIS'] ?? 'redis://127.0.0.1:6379';

const unreachable = (what: string, url: string, error: unknown): Error =>
  new Error(
    `${what} is not reachable at ${url}: ${error instanceof Error ? error.message : String(error)}. The store contract suite needs it (it never skips): start it (\`.ci/run\` does) or point SWITCHBOARD_TEST_${what === 'PostgreSQL' ? 'POSTGRES' : 'REDIS'} at one.`,
    { cause: error },
  );

/** A fresh schema name. */
export function freshSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

const schemas = new Set<string>();
const opened: { close(): Promise<void> }[] = [];
const prefixes = new Set<string>();
let cleanup: Promise<void> | undefined;

after(async () => {
  cleanup ??= (async () => {
    for (const store of opened.splice(0)) await store.close().catch(() => undefined);
    if (schemas.size > 0) {
      // A plain connection: opening a PgDatabase would migrate an admin schema, which breaks when
      // test runs of two Switchboard versions (two checkouts) share the test database.
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await admin.end();
      }
    }
    if (prefixes.size > 0) {
      for (const prefix of prefixes) {
        const cache = await RedisCache.open(REDIS_URL, { prefix });
        await cache.deleteAll();
        await cache.close();
      }
    }
  })();
  await cleanup;
});

/** Opens the test database on `schema` (a fresh one by default); closed and dropped after the file. */
export async function openTestPostgres(options: PgDatabaseOptions & { readonly url?: string } = {}): Promise<PgDatabase> {
  const schema = options.schema ?? freshSchema();
  try {
    const db = await PgDatabase.open(options.url ?? POSTGRES_URL, { ...options, schema });
    schemas.add(schema);
    opened.push(db);
    return db;
  } catch (error) {
    if (options.url !== undefined || !isMcpError(error, McpErrorCode.StoreUnavailable)) throw error;
    throw unreachable('PostgreSQL', POSTGRES_URL, error);
  }
}

/** Opens the test Redis under `prefix` (a fresh one by default); its keys are deleted after the file. */
export async function openTestRedis(options: RedisCacheOptions & { readonly url?: string } = {}): Promise<RedisCache> {
  const prefix = options.prefix ?? `sbtest:${randomBytes(6).toString('hex')}:`;
  try {
    const cache = await RedisCache.open(options.url ?? REDIS_URL, { ...options, prefix });
    prefixes.add(prefix);
    opened.push(cache);
    return cache;
  } catch (error) {
    if (options.url !== undefined || !isMcpError(error, McpErrorCode.StoreUnavailable)) throw error;
    throw unreachable('Redis', REDIS_URL, error);
  }
}

/** A TCP relay to `target` that can be closed (every connection cut, new ones refused) and opened again on the same port. */
export class TcpGate {
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  /** The local port (fixed by the first {@link open}). */
  port = 0;

  constructor(target: string) {
    const url = new URL(target);
    this.#target = { host: url.hostname, port: Number(url.port) };
  }

  /** `url` with its host and port replaced by the gate's. */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Starts relaying. */
  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.#target.port, this.#target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Cuts every relayed connection and stops listening (the server looks down). */
  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
