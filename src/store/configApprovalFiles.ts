/**
 * The {@link ConfigApprovalStore} in the state folder: `config-pending.json` (what the gateway
 * holds back, written by the gateway, read by `switchboard config pending|approve`) and
 * `config-approval.json` (the digest a person approved, written by `switchboard config
 * approve` or the console, used once by the gateway). Both mode 0600 in the 0700 state folder,
 * which the gateway keeps out of reach of the servers it fronts.
 *
 * @module
 */
import { join } from 'node:path';
import type { WeakeningChange } from '../host/configChanges.js';
import type { ConfigApprovalStore, PendingConfig } from '../host/configReload.js';
import { KEYED_APPROVAL_PATTERN } from '../host/launchKeys.js';
import { McpError, McpErrorCode } from '../util/errors.js';
import { JsonFile, type JsonFileOptions } from './jsonFile.js';

/** The file with the config waiting for approval. */
export const CONFIG_PENDING_FILE = 'config-pending.json';
/** The file with a person's approval. */
export const CONFIG_APPROVAL_FILE = 'config-approval.json';

/** {@link ConfigApprovalStore} over two JSON files under `stateDir`. */
export class JsonFileConfigApprovalStore implements ConfigApprovalStore {
  readonly #pending: JsonFile;
  readonly #approval: JsonFile;

  constructor(stateDir: string, options: JsonFileOptions = {}) {
    this.#pending = new JsonFile(join(stateDir, CONFIG_PENDING_FILE), options);
    this.#approval = new JsonFile(join(stateDir, CONFIG_APPROVAL_FILE), options);
  }

  async setPending(pending: PendingConfig | undefined): Promise<void> {
    if (pending === undefined) await this.#pending.remove();
    else await this.#pending.write({ version: 1, ...pending });
  }

  async pending(): Promise<PendingConfig | undefined> {
    const value = await this.#pending.read();
    if (value === undefined) return undefined;
    const v = value as Record<string, unknown>;
    const changes = v['changes'];
    if (typeof v['digest'] !== 'string' || !KEYED_APPROVAL_PATTERN.test(v['digest']) || typeof v['file'] !== 'string' || typeof v['at'] !== 'number' || !Array.isArray(changes)) {
      throw new McpError(McpErrorCode.StoreCorrupt, `${this.#pending.path} is not a pending config record (delete it; the gateway writes it again at the next reload)`, { cause: value });
    }
    return { digest: v['digest'], file: v['file'], at: v['at'], changes: changes.filter((c): c is WeakeningChange => typeof c === 'object' && c !== null && typeof c.path === 'string' && typeof c.reason === 'string') };
  }

  async approved(): Promise<string | undefined> {
    const value = (await this.#approval.read()) as Record<string, unknown> | undefined;
    const digest = value?.['digest'];
    return typeof digest === 'string' && KEYED_APPROVAL_PATTERN.test(digest) ? digest : undefined;
  }

  approve(digest: string): Promise<void> {
    return this.#approval.write({ version: 1, digest, at: new Date().toISOString() });
  }

  async consume(): Promise<void> {
    await this.#approval.remove();
  }
}
