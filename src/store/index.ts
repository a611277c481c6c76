/**
 * Persistence for the host (Node only: uses `node:fs`): JSON files under the state folder and
 * the SQLite audit log and per-user connections (better-sqlite3), implementing the store interfaces the host defines;
 * and the stores several gateway instances share: PostgreSQL (`pg`: pins, the audit chain,
 * OAuth tokens, per-user connections) and Redis (`ioredis`: rate limits, concurrency caps, SSE events, nonces, the policy's taint).
 *
 * @module
 */
export { JsonFile, type FileOps, type JsonFileOptions } from './jsonFile.js';
export { JsonFileNameAssignmentStore, JsonFileLaunchApprovalStore, openStateStores } from './jsonFileStore.js';
export { SqliteAuditLog, AUDIT_GENESIS, type AuditProcess, type SqliteAuditOptions } from './sqliteAudit.js';
export { OAuthTokenFiles, type ServerTokenOptions } from './oauthTokenFiles.js';
export { SqlitePinStore, openPinStore, type SqlitePinStoreOptions } from './sqlitePinStore.js';
export { SqliteGrantStore, openGrantStore } from './sqliteGrantStore.js';
export { SqliteTaintSnapshot } from './sqliteTaintStore.js';
export { SqliteConnectionStore, openSqliteConnectionStore, CONNECTIONS_DB_FILE, type SqliteConnectionStoreOptions } from './sqliteConnectionStore.js';
export { ConnectionSealer, ConnectionSealError, connectionsKeyFile, loadConnectionsKeyFile, parseConnectionsKey, CONNECTIONS_KEY_FILE, CONNECTIONS_KEY_BYTES, type ConnectionSealFailure } from './connectionSealer.js';
export { ChainVerifier, chainRecord, parseAuditRow, type AuditRow } from './auditChain.js';
export { boundTokenStore, checkServerTokens, type ServerTokenAccess, type ServerTokenRecord } from './serverTokens.js';
export { PgDatabase, storeUnavailable, type PgDatabaseOptions } from './postgres/pgDatabase.js';
export { PgPinStore } from './postgres/pgPinStore.js';
export { PgAuditLog, type PgAuditOptions } from './postgres/pgAuditLog.js';
export { PgOAuthTokens } from './postgres/pgOAuthTokens.js';
export { PgConnectionStore } from './postgres/pgConnectionStore.js';
export { MIGRATIONS, type PgMigration } from './postgres/pgMigrations.js';
export { RedisCache, cacheUnavailable, type RedisCacheOptions } from './redis/redisCache.js';
export { RedisRateLimitStore, RedisConcurrencyStore, type RedisConcurrencyOptions } from './redis/redisRateLimitStore.js';
export { RedisEventStore, type RedisEventStoreOptions } from './redis/redisEventStore.js';
export { RedisSessionStore, RedisSessionBus, type RedisSessionStoreOptions } from './redis/redisSessionStore.js';
export { RedisNonceStore, RedisDpopReplayCache } from './redis/redisSingleUse.js';
export { RedisDpopNonceSource, type RedisDpopNonceOptions } from './redis/redisDpopNonces.js';
export { RedisTaintStore, redisFingerprintKey, redisTaintWarnings, type RedisTaintStoreOptions } from './redis/redisTaintStore.js';
