/**
 * The host's small persistent state as JSON files under the state folder (`stateDir`,
 * default `.switchboard` next to the config file):
 *
 * - `names.json`: the {@link NameAssignmentStore} of the namespacer (which server owns which
 *   exposed name).
 * - `launches.json`: the {@link LaunchApprovalStore} (server id → keyed launch approval,
 *   `hmac-sha256:<hex>`; an older unkeyed `sha256:<hex>` entry is read but never matches).
 *
 * Files are written atomically with mode 0600 in a 0700 folder (see `jsonFile.ts`).
 *
 * @module
 */
import { join } from 'node:path';
import { LAUNCH_DIGEST_PATTERN } from '../host/config.js';
import type { LaunchApprovalStore } from '../host/launchConsent.js';
import { KEYED_APPROVAL_PATTERN } from '../host/launchKeys.js';
import type { NameAssignmentStore, NameAssignments } from '../host/namespacing.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { JsonFile, type JsonFileOptions } from './jsonFile.js';

/** A {@link NameAssignmentStore} in one JSON file (the namespacer checks the record's shape). */
export class JsonFileNameAssignmentStore implements NameAssignmentStore {
  readonly file: JsonFile;

  constructor(path: string, options: JsonFileOptions = {}) {
    this.file = new JsonFile(path, options);
  }

  /** The saved record, or `undefined` when there is no file yet. */
  load(): Promise<unknown> {
    return this.file.read();
  }

  /** Replaces the saved record. */
  save(record: NameAssignments): Promise<void> {
    return this.file.write(record);
  }
}

/** A {@link LaunchApprovalStore} in one JSON file: `{ "version": 1, "approved": { "<id>": "hmac-sha256:…" } }`. */
export class JsonFileLaunchApprovalStore implements LaunchApprovalStore {
  readonly file: JsonFile;

  constructor(path: string, options: JsonFileOptions = {}) {
    this.file = new JsonFile(path, options);
  }

  /** The approved digest for `serverId`, if any. Rejects with `ERR_MCP_STORE_CORRUPT` for a damaged file. */
  async get(serverId: string): Promise<string | undefined> {
    const approved = this.#approved(await this.file.read());
    return Object.hasOwn(approved, serverId) ? approved[serverId] : undefined;
  }

  /** Records `digest` for `serverId`, keeping the other approvals. */
  set(serverId: string, digest: string): Promise<void> {
    return this.file.update((current) => {
      const approved = { ...this.#approved(current) };
      Object.defineProperty(approved, serverId, { value: digest, enumerable: true, writable: true, configurable: true });
      return { version: 1, approved };
    });
  }

  #approved(value: unknown): Record<string, string> {
    if (value === undefined) return {};
    const fail = (detail: string): never => {
      throw new McpError(McpErrorCode.StoreCorrupt, `${this.file.path} is not a launch approval file: ${detail} (fix or delete it)`, { cause: value });
    };
    if (typeof value !== 'object' || value === null || (value as Record<string, unknown>)['version'] !== 1) return fail('expected { "version": 1, "approved": { … } }');
    const approved = (value as Record<string, unknown>)['approved'];
    if (typeof approved !== 'object' || approved === null || Array.isArray(approved)) return fail('"approved" is not an object');
    for (const [id, digest] of Object.entries(approved)) {
      if (typeof digest !== 'string' || !(KEYED_APPROVAL_PATTERN.test(digest) || LAUNCH_DIGEST_PATTERN.test(digest))) fail(`the digest of "${id}" is not "hmac-sha256:<64 hex>"`);
    }
    return approved as Record<string, string>;
  }
}

/** Both stores under `stateDir`: `names.json` and `launches.json`. */
export function openStateStores(stateDir: string, options: JsonFileOptions = {}): { names: JsonFileNameAssignmentStore; launches: JsonFileLaunchApprovalStore } {
  return {
    names: new JsonFileNameAssignmentStore(join(stateDir, 'names.json'), options),
    launches: new JsonFileLaunchApprovalStore(join(stateDir, 'launches.json'), options),
  };
}
