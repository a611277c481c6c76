/**
 * The config file's watcher in `switchboard gateway`, behind the reload gate
 * (`host/configReload.ts`): each change of the file is read, parsed and offered to the gate
 * with its keyed digest; a config that only tightens applies live, one that weakens waits for
 * `switchboard config approve` (the state folder's `config-approval.json`, watched here too)
 * or the console. A config that no longer parses is reported and the running one kept.
 *
 * @module
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { AuditEntry } from '../host/audit.js';
import { parseConfig } from '../host/config.js';
import type { HostConfig } from '../host/configTypes.js';
import { ConfigReloadGate } from '../host/configReload.js';
import type { LaunchApprovalStore } from '../host/launchConsent.js';
import { configApproval, launchApproval } from '../host/launchKeys.js';
import { CONFIG_APPROVAL_FILE, JsonFileConfigApprovalStore } from '../store/configApprovalFiles.js';
import type { Logger } from '../util/logger.js';
import { configParseOptions } from './hostSetup.js';

/** What {@link gatewayReload} needs. */
export interface GatewayReloadOptions {
  readonly file: string;
  readonly stateDir: string;
  /** The approval key of the state folder. */
  readonly key: string;
  readonly logger: Logger;
  /** The config in force. */
  readonly current: () => HostConfig;
  /** Applies a config (sets the CLI's current config, then `OpenedGateway.apply`). */
  readonly apply: (next: HostConfig) => Promise<void>;
  /** Where launch approvals are kept: an approved config's new launches are recorded (the person saw them). */
  readonly launches: LaunchApprovalStore;
  readonly audit?: (entry: AuditEntry) => Promise<void>;
  /** Told of a config that could not be read or parsed (the running one is kept). */
  readonly refused?: (error: string) => void;
}

/** The running watcher and its gate. */
export interface GatewayReload {
  readonly gate: ConfigReloadGate;
  close(): void;
}

/** Starts watching the config file and the approval file (see the module comment). */
export function gatewayReload(options: GatewayReloadOptions): GatewayReload {
  const { file, logger, key } = options;
  const gate = new ConfigReloadGate({
    current: options.current,
    apply: options.apply,
    approved: async (next) => {
      // The launches the person just approved with the config: those that differ from the running ones.
      const running = new Map(options.current().servers.map((s) => [s.id, launchApproval(key, s)]));
      for (const server of next.servers) {
        const digest = launchApproval(key, server);
        if (digest !== undefined && !server.disabled && running.get(server.id) !== digest) await options.launches.set(server.id, digest);
      }
    },
    store: new JsonFileConfigApprovalStore(options.stateDir),
    logger,
    ...(options.audit !== undefined ? { audit: options.audit } : {}),
  });
  let chain = Promise.resolve();
  const reload = (): void => {
    chain = chain.then(async () => {
      try {
        const text = await readFile(file, 'utf8');
        // Parsed as at start (the per-user default state folder included): otherwise a config without `stateDir` would read as moving it.
        const next = parseConfig(text, configParseOptions(file));
        const outcome = await gate.offer(next, configApproval(key, text));
        if (outcome !== 'held') logger.info('config reloaded', { file, servers: next.servers.length });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        logger.error(`config not reloaded, the running one is kept: ${message}`);
        options.refused?.(message);
      }
    });
  };
  const recheck = (): void => {
    chain = chain.then(() => gate.recheck().then(
      () => undefined,
      (error: unknown) => logger.error(`the approved config could not be applied: ${error instanceof Error ? error.message : String(error)}`),
    ));
  };
  // The folders, not the files: editors (and the state store) replace a file by renaming a new one over it.
  const watchers = [debounced(dirname(file), basename(file), reload, logger, `cannot watch ${file}; restart to apply changes`), debounced(options.stateDir, CONFIG_APPROVAL_FILE, recheck, logger, `cannot watch ${options.stateDir}; approvals apply at the next change of the config`)];
  return {
    gate,
    close: () => {
      for (const w of watchers) w?.close();
    },
  };
}

function debounced(folder: string, name: string, run: () => void, logger: Logger, failure: string): FSWatcher | undefined {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return watch(folder, (_event, changed) => {
      if (changed !== null && changed !== name) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(run, 100);
    });
  } catch (error) {
    logger.warn(failure, { error: String(error) });
    return undefined;
  }
}
