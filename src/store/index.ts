/**
 * Persistence for the host (Node only: uses `node:fs`): JSON files under the state folder and
 * the SQLite audit log (better-sqlite3), implementing the store interfaces the host defines.
 *
 * @module
 */
export { JsonFile, type FileOps, type JsonFileOptions } from './jsonFile.js';
export { JsonFileNameAssignmentStore, JsonFileLaunchApprovalStore, openStateStores } from './jsonFileStore.js';
export { SqliteAuditLog, AUDIT_GENESIS, type SqliteAuditOptions } from './sqliteAudit.js';
export { OAuthTokenFiles, type ServerTokenOptions } from './oauthTokenFiles.js';
export { SqlitePinStore, openPinStore, type SqlitePinStoreOptions } from './sqlitePinStore.js';
export { SqliteGrantStore, openGrantStore } from './sqliteGrantStore.js';
