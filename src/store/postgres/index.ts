/**
 * The PostgreSQL stores shared by several gateway instances: {@link PgDatabase} (pool,
 * migrations, LISTEN/NOTIFY), and on it the pins, the audit chain and the OAuth tokens.
 *
 * @module
 */
export { PgDatabase, storeUnavailable, type PgDatabaseOptions } from './pgDatabase.js';
export { PgPinStore } from './pgPinStore.js';
export { PgAuditLog, type PgAuditOptions } from './pgAuditLog.js';
export { PgOAuthTokens } from './pgOAuthTokens.js';
export { MIGRATIONS, type PgMigration } from './pgMigrations.js';
