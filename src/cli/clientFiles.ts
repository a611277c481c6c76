/**
 * File handling for `import`, `wrap`, `unwrap` and `scan`: reading client configs (and the one
 * `wrap`/`unwrap` work on), backups next to
 * the file (`<file>.switchboard-backup-<timestamp>`, mode 0600: client configs hold tokens),
 * atomic writes (a new file, or a Switchboard config, is mode 0600; a client's existing file
 * keeps its mode), and the command a wrapped client uses to start the gateway.
 *
 * @module
 */
import { chmodSync, constants, copyFileSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SourcedServer } from '../host/clientConfigs/merge.js';
import type { GatewayLaunch } from '../host/clientConfigs/types.js';
import { UsageError, type ParsedArgs } from './args.js';
import { clientName, homeOf, processContext, wrapLocation, type ClientLocation } from './clientLocations.js';

/** The file's text, or undefined when it does not exist. */
export function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/**
 * Writes `text` to `file` through a temporary file and a rename: with `mode` when given, else
 * keeping an existing file's mode, else 0600 (what the CLI writes holds config or secrets).
 */
export function writeAtomic(file: string, text: string, mode?: number): void {
  const wanted = mode ?? (existsSync(file) ? statSync(file).mode & 0o777 : 0o600);
  const tmp = join(dirname(file), `.${basename(file)}.switchboard-${process.pid}.tmp`);
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode: wanted, flag: 'wx' });
  chmodSync(tmp, wanted);
  renameSync(tmp, file);
}

const BACKUP_MARK = '.switchboard-backup-';

/** A timestamp that sorts as text: `20261201T193000123Z`. */
function stamp(now: Date): string {
  return now.toISOString().replace(/[-:.]/g, '');
}

/** Copies `file` next to itself as `<file>.switchboard-backup-<timestamp>`; returns the copy's path. */
export function backupFile(file: string, now = new Date()): string {
  let target = `${file}${BACKUP_MARK}${stamp(now)}`;
  for (let n = 2; existsSync(target); n++) target = `${file}${BACKUP_MARK}${stamp(now)}-${n}`;
  copyFileSync(file, target, constants.COPYFILE_EXCL);
  chmodSync(target, 0o600);
  return target;
}

/** The most recent backup of `file`, or undefined. */
export function latestBackup(file: string): string | undefined {
  const prefix = `${basename(file)}${BACKUP_MARK}`;
  const dir = dirname(file);
  const names = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(prefix)) : [];
  names.sort((a, b) => {
    const ta = a.slice(prefix.length).split('-');
    const tb = b.slice(prefix.length).split('-');
    return (ta[0] ?? '').localeCompare(tb[0] ?? '') || Number(ta[1] ?? 1) - Number(tb[1] ?? 1);
  });
  const last = names[names.length - 1];
  return last === undefined ? undefined : join(dir, last);
}

/**
 * How a wrapped client starts the gateway: this Node binary running the built CLI. The
 * command module sits two folders below the package root both as source (`src/cli/`) and
 * built (`dist/cli/`, `dist/_chunks/`), so the built entry is found the same way from each.
 */
export function gatewayLaunch(configFile: string): GatewayLaunch {
  const main = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
  return { command: process.execPath, args: [main, 'gateway', '--stdio', '--config', configFile] };
}

/** A short label of where a server came from: `cursor`, `claude-code project`. */
export function sourceLabel(location: ClientLocation): string {
  return location.scope === 'user' ? location.client : `${location.client} ${location.scope}`;
}

/** Reads every existing config among `locations`; a malformed one throws (naming file and position). */
export function readLocations(locations: readonly ClientLocation[], home: string, projectDir: string | undefined, log: (line: string) => void): SourcedServer[] {
  const found: SourcedServer[] = [];
  for (const location of locations) {
    const text = readIfExists(location.file);
    if (text === undefined) continue;
    const parsed = location.format.parse(text, location.file, { home, ...(location.scope === 'user' || projectDir === undefined ? {} : { projectDir }) });
    log(`read ${location.file} (${sourceLabel(location)}): ${parsed.servers.length} server${parsed.servers.length === 1 ? '' : 's'}`);
    for (const skipped of parsed.skipped) log(`  ${skipped}`);
    for (const server of parsed.servers) found.push({ source: sourceLabel(location), server });
  }
  return found;
}

/** The client config `wrap` or `unwrap` works on: `<client>` and `--project` of `args`. */
export function wrapTarget(args: ParsedArgs): { location: ClientLocation; text: string; home: string; project: string | undefined } {
  if (args.positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[1])}`);
  const client = clientName(args.positionals[0]);
  const context = processContext();
  const project = typeof args.options['project'] === 'string' ? resolve(args.options['project']) : undefined;
  const location = wrapLocation(client, context, project);
  const text = readIfExists(location.file);
  if (text === undefined) throw new Error(`no ${client} config at ${location.file}`);
  return { location, text, home: homeOf(context), project };
}

