/**
 * Switchboard's per-user folder, outside the working folder that MCP servers are usually given:
 *
 * | platform | folder |
 * |---|---|
 * | Linux and others | `$XDG_CONFIG_HOME/switchboard`, else `~/.config/switchboard` |
 * | macOS | `$XDG_CONFIG_HOME/switchboard` when set, else `~/Library/Application Support/switchboard` |
 * | Windows | `%APPDATA%\switchboard`, else `~\AppData\Roaming\switchboard` |
 *
 * It holds the default state folders (`state/<folder>-<digest>/`, one per config file, used when
 * the config sets no `stateDir`: two configs never share pins or an audit log), an optional
 * per-user config (`switchboard.json`), and `gateway.json`, where the last gateway
 * started records its config and state folder, so that `audit`, `pins`, `consent`, `console`
 * and `policy` find the running gateway without `--config` (after `npm start` too).
 *
 * Which config a command reads without `--config`: `./switchboard.json` when there is one; else
 * (commands about the running gateway) the config `gateway.json` names; else the per-user
 * `switchboard.json`.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/** The file in the per-user folder where a starting gateway records its config and state folder. */
export const RUNNING_GATEWAY_FILE = 'gateway.json';

/** The per-user folder (see the module comment), from `env` and the platform. */
export function userFolder(env: Readonly<Record<string, string | undefined>> = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (platform === 'win32') return join(env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'switchboard');
  const xdg = env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg.startsWith('/')) return join(xdg, 'switchboard');
  return platform === 'darwin' ? join(home, 'Library', 'Application Support', 'switchboard') : join(home, '.config', 'switchboard');
}

/**
 * The default state folder of the config at `configFile`: `<per-user folder>/state/<name>-<digest>`,
 * named after the config's folder and keyed by the config's real path.
 */
export function userStateDir(configFile: string): string {
  let file = resolve(configFile);
  try {
    file = realpathSync(file);
  } catch {
    // Not there (yet): keyed by the path as given.
  }
  const name = basename(dirname(file)).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'root';
  return join(userFolder(), 'state', `${name}-${createHash('sha256').update(file).digest('hex').slice(0, 12)}`);
}

/** What a running gateway recorded in {@link RUNNING_GATEWAY_FILE}. */
export interface RunningGatewayRecord {
  readonly config: string;
  readonly stateDir: string;
  readonly pid: number;
  readonly startedAt: string;
}

/** Records the starting gateway's config and state folder (mode 0600, written atomically). */
export async function recordRunningGateway(config: string, stateDir: string): Promise<void> {
  const folder = userFolder();
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const record: RunningGatewayRecord = { config, stateDir, pid: process.pid, startedAt: new Date().toISOString() };
  const file = join(folder, RUNNING_GATEWAY_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

/** The config the last gateway started on recorded, when the record and its config are there. */
export async function runningGatewayConfig(): Promise<string | undefined> {
  try {
    const record = JSON.parse(await readFile(join(userFolder(), RUNNING_GATEWAY_FILE), 'utf8')) as Partial<RunningGatewayRecord>;
    return typeof record.config === 'string' && existsSync(record.config) ? record.config : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The config file a command reads: `--config` when given; else `./switchboard.json` when it
 * exists; else, for a command about the running gateway (`running`), the config the last
 * gateway started on; else the per-user `switchboard.json` when it exists; else
 * `./switchboard.json` (whose absence the command reports).
 */
export async function configFileOption(option: unknown, running: boolean): Promise<string> {
  if (typeof option === 'string') return resolve(option);
  const local = resolve('switchboard.json');
  if (existsSync(local)) return local;
  const recorded = running ? await runningGatewayConfig() : undefined;
  if (recorded !== undefined) return recorded;
  const own = join(userFolder(), 'switchboard.json');
  return existsSync(own) ? own : local;
}
