/**
 * Persistence for the host (Node only: uses `node:fs`): JSON files under the state folder
 * implementing the store interfaces the host defines.
 *
 * @module
 */
export { JsonFile, type FileOps, type JsonFileOptions } from './jsonFile.js';
export { JsonFileNameAssignmentStore, JsonFileLaunchApprovalStore, openStateStores } from './jsonFileStore.js';
export { SqlitePinStore, openPinStore, type SqlitePinStoreOptions } from './sqlitePinStore.js';
