/**
 * File handling for `import`, `wrap` and `unwrap`: reading client configs, backups next to
 * the file (`<file>.switchboard-backup-<timestamp>`), atomic writes that keep the file's mode,
 * and the command a wrapped client uses to start the gateway.
 *
 * @module
 */
import { constants, copyFileSync, existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayLaunch } from '../host/clientConfigs/types.js';

/** The file's text, or undefined when it does not exist. */
export function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Writes `text` to `file` through a temporary file and a rename, keeping an existing file's mode. */
export function writeAtomic(file: string, text: string): void {
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
  const tmp = join(dirname(file), `.${basename(file)}.switchboard-${process.pid}.tmp`);
  writeFileSync(tmp, text, { mode });
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
