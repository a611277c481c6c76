/**
 * Opening the per-user connection store (issue #34's token store) the way the gateway and
 * `switchboard connections` do: embedded SQLite in the state folder (`connections.db`) by
 * default, PostgreSQL with `--store postgres://...` (or `switchboard.store`). Either way the
 * sealing key comes from `SWITCHBOARD_CONNECTIONS_KEY` (64 hex digits or base64 of 32 bytes) or
 * else the state folder's `connections.key` (created on first use, mode 0600). Instances sharing
 * PostgreSQL must share the key: a row sealed under another fails with a `wrong-key` error naming
 * both key ids, never with garbage tokens.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import type { ServerConfig } from '../host/configTypes.js';
import type { ConnectionStore } from '../host/connections.js';
import { ConnectionSealer, connectionsKeyFile, loadConnectionsKeyFile, parseConnectionsKey } from '../store/connectionSealer.js';
import type { PgDatabase } from '../store/postgres/pgDatabase.js';
import { describeError } from '../util/errors.js';
import { CliFailure } from './args.js';

/** The variable that carries the connections key (instead of the key file). */
export const CONNECTIONS_KEY_ENV = 'SWITCHBOARD_CONNECTIONS_KEY';

/** Options of {@link openConnectionStore}. */
export interface OpenConnectionStoreOptions {
  /** The gateway's state folder (the SQLite file and the key file). */
  readonly stateDir: string;
  /** PostgreSQL: a `postgres://` URL (opened here, closed with the store) or the gateway's open database (shared, left open). Unset: SQLite. */
  readonly store?: string | PgDatabase;
  /** Where `SWITCHBOARD_CONNECTIONS_KEY` is read. Default `process.env`. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

/** What {@link openConnectionStore} opened. */
export interface OpenedConnectionStore {
  readonly store: ConnectionStore;
  /** The key's id (not secret): instances sharing a store must show the same one. */
  readonly keyId: string;
  /** Where the store and the key are, for the start-up line (no credentials). */
  readonly described: string;
}

/** The connections key's sealer: from the environment variable, else the state folder's key file. */
export function connectionsSealer(stateDir: string, environment: Readonly<Record<string, string | undefined>> = process.env): { readonly sealer: ConnectionSealer; readonly source: string } {
  const fromEnv = environment[CONNECTIONS_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { sealer: ConnectionSealer.fromKey(parseConnectionsKey(fromEnv, CONNECTIONS_KEY_ENV)), source: CONNECTIONS_KEY_ENV };
  const file = connectionsKeyFile(stateDir);
  return { sealer: ConnectionSealer.fromKey(loadConnectionsKeyFile(file)), source: file };
}

/**
 * Opens the per-user connection store of a gateway (see the module comment). A
 * {@link CliFailure} when the key or the store cannot be opened.
 */
export async function openConnectionStore(options: OpenConnectionStoreOptions): Promise<OpenedConnectionStore> {
  try {
    const { sealer, source } = connectionsSealer(options.stateDir, options.environment);
    if (options.store === undefined) {
      const { openSqliteConnectionStore } = await import('../store/sqliteConnectionStore.js');
      const store = openSqliteConnectionStore(options.stateDir, sealer);
      return { store, keyId: sealer.keyId, described: `connections in ${store.path} (key ${sealer.keyId} from ${source})` };
    }
    const [{ PgDatabase }, { PgConnectionStore }] = await Promise.all([import('../store/postgres/pgDatabase.js'), import('../store/postgres/pgConnectionStore.js')]);
    if (typeof options.store !== 'string') {
      return { store: new PgConnectionStore(options.store, sealer), keyId: sealer.keyId, described: `connections in PostgreSQL schema ${options.store.schema} (key ${sealer.keyId} from ${source})` };
    }
    const db = await PgDatabase.open(options.store);
    const inner = new PgConnectionStore(db, sealer);
    const store: ConnectionStore = {
      get: (k) => inner.get(k),
      put: (c) => inner.put(c),
      list: (f) => inner.list(f),
      revoke: (f) => inner.revoke(f),
      take: (f) => inner.take(f),
      refreshOnce: (k, stale, refresh) => inner.refreshOnce(k, stale, refresh),
      connectOnce: (k, connect) => inner.connectOnce(k, connect),
      beginSignIn: (p) => inner.beginSignIn(p),
      takeSignIn: (s, now) => inner.takeSignIn(s, now),
      registerOnce: (k, register) => inner.registerOnce(k, register),
      forgetRegistration: (k, clientId) => inner.forgetRegistration(k, clientId),
      registrations: (issuer) => inner.registrations(issuer),
      close: () => db.close(),
    };
    return { store, keyId: sealer.keyId, described: `connections in PostgreSQL schema ${db.schema} (key ${sealer.keyId} from ${source})` };
  } catch (error) {
    throw new CliFailure(`The per-user connections could not be opened: ${describeError(error)}`, { cause: error });
  }
}

/**
 * A {@link ConnectionStore} opened on first use: a gateway with no per-user or token-exchange
 * server never creates the key or the store, and one that gains such a server on a reload opens
 * them then. A store that cannot be opened fails every operation (the call is refused, never
 * sent with another credential) and is tried again on the next one.
 */
export function lazyConnectionStore(open: () => Promise<ConnectionStore>): ConnectionStore {
  let opening: Promise<ConnectionStore> | undefined;
  let closed = false;
  const store = (): Promise<ConnectionStore> => {
    if (closed) return Promise.reject(new CliFailure('The per-user connections are closed (the gateway is stopping).'));
    opening ??= open().catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
  return {
    get: async (k) => (await store()).get(k),
    put: async (c) => (await store()).put(c),
    list: async (f) => (await store()).list(f),
    revoke: async (f) => (await store()).revoke(f),
    take: async (f) => (await store()).take(f),
    refreshOnce: async (k, stale, refresh) => (await store()).refreshOnce(k, stale, refresh),
    connectOnce: async (k, connect) => (await store()).connectOnce(k, connect),
    beginSignIn: async (p) => (await store()).beginSignIn(p),
    takeSignIn: async (s, now) => (await store()).takeSignIn(s, now),
    registerOnce: async (k, register) => (await store()).registerOnce(k, register),
    forgetRegistration: async (k, clientId) => (await store()).forgetRegistration(k, clientId),
    registrations: async (issuer) => (await store()).registrations(issuer),
    close: async () => {
      closed = true;
      const opened = await opening?.catch(() => undefined);
      await opened?.close();
    },
  };
}

/**
 * Whether a gateway's connection store is in use: a server of `servers` has `auth` `per-user`
 * or `token-exchange`, or the connections key exists (in the environment, or the state folder's
 * key file: connections may be left from an earlier config). The console asks this before it
 * lists, so that a look at its Connections page never creates the store or its key.
 */
export function connectionStoreInUse(stateDir: string, servers: readonly ServerConfig[], environment: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (servers.some((s) => (s.options.auth?.mode ?? 'shared') !== 'shared')) return true;
  const fromEnv = environment[CONNECTIONS_KEY_ENV];
  return (fromEnv !== undefined && fromEnv !== '') || existsSync(connectionsKeyFile(stateDir));
}
