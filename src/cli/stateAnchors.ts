/**
 * Where the state stores' integrity anchor lives and how the commands use it (see
 * `store/anchor/anchorFile.ts` and `docs/security.md`, "State that cannot be reset by moving
 * files"):
 *
 * - The folder is per user and outside every state folder: `$SWITCHBOARD_ANCHOR_DIR`, else
 *   `%LOCALAPPDATA%\switchboard\anchor` on Windows, else `$XDG_STATE_HOME/switchboard/anchor`
 *   (`~/.local/state/switchboard/anchor`). The config cannot move it (an agent that rewrites
 *   the config would point it at an empty folder).
 * - A store is named by its file (`file:<real path of the state folder>/pins.db`), or for the
 *   PostgreSQL audit log by its database and schema (`postgres://host:port/db?schema=s`, no credentials).
 * - The SQLite pin store of the gateway, `scan` and `pins` is an {@link AnchoredPinStore}. The
 *   PostgreSQL pin store (`--store`) is not anchored here: its instances approve for each other,
 *   and a per-user file of one instance cannot follow them.
 *
 * @module
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import type { HostConfig } from '../host/configTypes.js';
import type { PinStore } from '../host/pins/pinStore.js';
import type { Logger } from '../util/logger.js';
import { AnchorFolder } from '../store/anchor/anchorFile.js';
import { AnchoredPinStore } from '../store/anchor/pinAnchor.js';
import { AuditCheckpointer, checkAuditAnchor, type CheckpointedLog } from '../store/anchor/auditAnchor.js';
import { counted } from '../util/plural.js';

/** The anchor folder of this user (see the module comment). */
export function anchorDir(env: Readonly<Record<string, string | undefined>> = process.env, platform: string = process.platform, home: string = homedir()): string {
  const explicit = env['SWITCHBOARD_ANCHOR_DIR'];
  if (explicit !== undefined && explicit !== '') return resolvePath(explicit);
  if (platform === 'win32') return join(env['LOCALAPPDATA'] ?? join(home, 'AppData', 'Local'), 'switchboard', 'anchor');
  const state = env['XDG_STATE_HOME'];
  return join(state !== undefined && state !== '' ? state : join(home, '.local', 'state'), 'switchboard', 'anchor');
}

/** Opens this user's anchor folder. */
export function openAnchors(): AnchorFolder {
  return AnchorFolder.open(anchorDir());
}

/** The name of a file `name` of a state folder (see {@link storeFileName}). */
export function stateStoreName(stateDir: string, name: 'pins.db' | 'audit.db'): string {
  return storeFileName(join(stateDir, name));
}

/** The name of a store's file: `file:` and its real path (its folder's, so a symlinked or relative path names it once). */
export function storeFileName(file: string): string {
  let dir = dirname(resolvePath(file));
  try {
    dir = realpathSync(dir);
  } catch {
    // Not there yet: its resolved path.
  }
  return `file:${join(dir, basename(file))}`;
}

/** The name of a PostgreSQL store: its server, database and schema (default `switchboard`), without credentials or other options. */
export function postgresStoreName(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.host}${u.pathname}?schema=${u.searchParams.get('schema') ?? 'switchboard'}`;
  } catch {
    return 'postgres:(unparsable URL)';
  }
}

/**
 * The SQLite pin store `inner` of `config`'s state folder, checked against its anchor and
 * anchored on every write.
 *
 * @throws AnchorError when it does not match its anchor.
 */
export async function anchoredPins(config: Pick<HostConfig, 'stateDir' | 'file'>, inner: PinStore, logger?: Logger): Promise<PinStore> {
  const name = stateStoreName(config.stateDir, 'pins.db');
  const { store, status } = await AnchoredPinStore.open(inner, openAnchors(), name, { config: config.file });
  if (status.created && status.servers > 0) logger?.info(`pins: anchored the pins of ${counted(status.servers, 'server')} in ${anchorDir()}`);
  return store;
}

/**
 * Checks the audit log against its anchor (refusing to continue a broken chain) and starts
 * its checkpoints; `store` is the PostgreSQL URL when the log is there.
 *
 * @throws AnchorError when the log does not hold the anchored record.
 */
export async function anchoredAudit(config: Pick<HostConfig, 'stateDir' | 'file'>, log: CheckpointedLog, logger: Logger, store?: string): Promise<AuditCheckpointer> {
  const folder = openAnchors();
  const name = store !== undefined ? postgresStoreName(store) : stateStoreName(config.stateDir, 'audit.db');
  const head = await checkAuditAnchor(log, folder, name, { config: config.file });
  return new AuditCheckpointer(log, folder, name, { from: head, onProblem: (problem) => logger.error(problem) });
}
