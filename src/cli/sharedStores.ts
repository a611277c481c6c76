/**
 * The stores several gateway instances share, opened from `--store postgres://...` and
 * `--cache redis://...` (or `switchboard.store` / `switchboard.cache`): PostgreSQL for the pins,
 * the audit log, the kept consent approvals, the consent queue and the downstream OAuth
 * tokens, Redis for the rate-limit buckets, the concurrency caps, the stateful sessions, the MRTR
 * nonces, the DPoP replay cache and nonces, and the policy's taint. Unset, the
 * gateway keeps its embedded defaults (SQLite files in the state folder, counters in memory).
 * An unreachable store stops the gateway before any server starts.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AuditLog, AuditReader } from '../host/audit.js';
import type { ArchivableLog } from '../store/auditArchive.js';
import type { ConsentGrantStore } from '../host/consent/consentGrants.js';
import type { SharedConsentRequests } from '../host/consent/sharedConsent.js';
import type { ConcurrencyStore, RateLimitStore } from '../host/guards.js';
import type { PinStore } from '../host/pins/pinStore.js';
import type { TokenStore } from '../auth/client/tokenStore.js';
import type { DpopNonceSource, DpopReplayCache } from '../auth/resource/dpopProof.js';
import type { TaintStore } from '../host/policy/taint.js';
import type { PgDatabase } from '../store/postgres/pgDatabase.js';
import type { SharedPolicyStore } from '../host/clusterPolicy.js';
import type { NonceStore } from '../server/requestState.js';
import type { EventStore } from '../transport/http/server/eventStore.js';
import type { SessionBus, SessionStore } from '../transport/http/server/sessionStore.js';
import { describeError } from '../util/errors.js';
import { CliFailure } from './args.js';

/** What {@link openSharedStores} opened (each member only when its URL was given). */
export interface SharedStores {
  readonly pins?: PinStore;
  readonly audit?: AuditLog & AuditReader & ArchivableLog & { close(): Promise<void> };
  /** Kept consent approvals. */
  readonly grants?: ConsentGrantStore & { close(): Promise<void> };
  /** The consent requests every instance sees and answers. */
  readonly consentRequests?: SharedConsentRequests;
  /** Downstream OAuth tokens by server identity. */
  readonly oauthTokens?: OAuthTokenStores;
  readonly rateLimitStore?: RateLimitStore;
  readonly concurrencyStore?: ConcurrencyStore;
  /** Stateful (2025-11-25) sessions shared by every instance: records, bus, SSE events (Redis). */
  readonly sessions?: { readonly sessionStore: SessionStore; readonly sessionBus: SessionBus; readonly eventStore: EventStore };
  /** MRTR single-use `requestState` nonces (Redis). */
  readonly nonceStore?: NonceStore;
  /** The DPoP proofs' replay cache and server nonces (Redis), for `gateway.auth.oauth.dpop`. */
  readonly dpop?: { readonly replayCache: DpopReplayCache; readonly nonces: DpopNonceSource };
  /**
   * The policy's taint (Redis, `--cache`) and the key of its secret fingerprints (from
   * PostgreSQL with `--store`, else from Redis), so every instance sees what entered a session
   * on any other; `warnings`: Redis settings that would let it forget taint.
   */
  readonly taint?: { readonly store: TaintStore; readonly fingerprintKey: string; readonly warnings: readonly string[] };
  /** The cluster's policy, one versioned row in PostgreSQL (`--store`), followed by every instance. */
  readonly policy?: SharedPolicyStore;
  /** The MRTR `requestState` sealing keys, shared through PostgreSQL (`--store`): a state sealed on one instance opens on every other. */
  readonly requestStateKeys?: readonly Uint8Array[];
  /** The key env values are digested under in server identities (`host/pins/serverIdentity.ts`), shared through PostgreSQL (`--store`): every instance keys pins alike. */
  readonly identityKey?: Uint8Array;
  /** The PostgreSQL database itself (`--store`), for stores opened beside these (the per-user connections: `openConnectionStore({ store: database })`). */
  readonly database?: PgDatabase;
  /** Where they are, for the start-up line (credentials removed). */
  readonly described: readonly string[];
  /** Closes the connections (after the audit log was flushed). */
  close(): Promise<void>;
}

/** Where the OAuth tokens of each remote server are kept (the files, or PostgreSQL). */
export interface OAuthTokenStores {
  forServer(url: string, options?: { readonly clientId?: string | undefined }): TokenStore;
}

/** A URL without its password, for logs. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Opens the shared stores of `store` (PostgreSQL) and `cache` (Redis); a {@link CliFailure} when one cannot be reached. */
export async function openSharedStores(store: string | undefined, cache: string | undefined): Promise<SharedStores> {
  const closers: (() => Promise<void>)[] = [];
  const described: string[] = [];
  const result: { -readonly [K in keyof SharedStores]?: SharedStores[K] } = {};
  let taintKeyOf: (() => Promise<string>) | undefined;
  try {
    if (store !== undefined) {
      const [{ PgDatabase }, { PgPinStore }, { PgAuditLog }, { PgGrantStore, PgConsentRequests }, { PgOAuthTokens }, { sharedKey }, { PgPolicyStore }] = await Promise.all([
        import('../store/postgres/pgDatabase.js'),
        import('../store/postgres/pgPinStore.js'),
        import('../store/postgres/pgAuditLog.js'),
        import('../store/postgres/pgConsent.js'),
        import('../store/postgres/pgOAuthTokens.js'),
        import('../store/postgres/pgSharedKeys.js'),
        import('../store/postgres/pgPolicy.js'),
      ]);
      // Its own application_name: the consent requests of an instance that died are told apart by it.
      const db = await PgDatabase.open(store, { applicationName: instanceName() });
      closers.push(() => db.close());
      result.database = db;
      result.pins = new PgPinStore(db);
      result.audit = new PgAuditLog(db);
      result.grants = new PgGrantStore(db);
      result.consentRequests = new PgConsentRequests(db);
      result.oauthTokens = new PgOAuthTokens(db);
      result.requestStateKeys = [await sharedKey(db, 'mrtr-request-state')];
      result.identityKey = await sharedKey(db, 'server-identity');
      result.policy = new PgPolicyStore(db);
      taintKeyOf = async () => Buffer.from(await sharedKey(db, 'taint-fingerprints')).toString('hex');
      described.push(`store ${redact(store)} (pins, audit, consent approvals and queue, OAuth tokens, the MRTR sealing key, the cluster policy)`);
    }
    if (cache !== undefined) {
      const [{ RedisCache }, { RedisRateLimitStore, RedisConcurrencyStore }, { RedisSessionStore, RedisSessionBus }, { RedisEventStore }, { RedisNonceStore, RedisDpopReplayCache }, { RedisDpopNonceSource }, { RedisTaintStore, redisFingerprintKey, redisTaintWarnings }] = await Promise.all([
        import('../store/redis/redisCache.js'),
        import('../store/redis/redisRateLimitStore.js'),
        import('../store/redis/redisSessionStore.js'),
        import('../store/redis/redisEventStore.js'),
        import('../store/redis/redisSingleUse.js'),
        import('../store/redis/redisDpopNonces.js'),
        import('../store/redis/redisTaintStore.js'),
      ]);
      const redis = await RedisCache.open(cache);
      closers.push(() => redis.close());
      result.rateLimitStore = new RedisRateLimitStore(redis);
      result.concurrencyStore = new RedisConcurrencyStore(redis);
      const sessionBus = await RedisSessionBus.open(redis);
      closers.push(() => sessionBus.close());
      result.sessions = { sessionStore: new RedisSessionStore(redis), sessionBus, eventStore: new RedisEventStore(redis) };
      result.nonceStore = new RedisNonceStore(redis);
      result.dpop = { replayCache: new RedisDpopReplayCache(redis), nonces: new RedisDpopNonceSource(redis) };
      result.taint = { store: new RedisTaintStore(redis), fingerprintKey: await (taintKeyOf ?? (() => redisFingerprintKey(redis)))(), warnings: await redisTaintWarnings(redis) };
      described.push(`cache ${redact(cache)} (rate limits, concurrency caps, stateful sessions and their SSE events, MRTR nonces, the DPoP replay cache and nonces, the policy's taint)`);
    }
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    throw new CliFailure(`${describeError(error)} The gateway did not start.`);
  }
  return {
    ...result,
    described,
    close: async () => {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    },
  };
}

/** The guard options of the shared counters (none when no cache was given). */
export function sharedGuardStores(shared: SharedStores): { rateLimitStore?: RateLimitStore; concurrencyStore?: ConcurrencyStore } {
  return { ...(shared.rateLimitStore !== undefined ? { rateLimitStore: shared.rateLimitStore } : {}), ...(shared.concurrencyStore !== undefined ? { concurrencyStore: shared.concurrencyStore } : {}) };
}

let thisInstance: string | undefined;

/**
 * This instance's name, the same for the whole process: its `application_name` in PostgreSQL
 * (in the rows it writes and in `pg_stat_activity`, which tells the consent requests of an
 * instance that died apart) and the publisher named in the cluster policy's rows. Unique (a
 * random part), then the process id and host name; at most 63 ASCII characters (PostgreSQL cuts
 * longer names, and the rows must hold the name as the server shows it).
 */
export function instanceName(): string {
  const host = hostname().replace(/[^\x21-\x7e]/g, '?');
  thisInstance ??= `switchboard ${randomBytes(4).toString('hex')} ${process.pid}@${host}`.slice(0, 63);
  return thisInstance;
}
