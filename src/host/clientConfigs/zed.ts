/**
 * Zed's `settings.json` (JSONC): `context_servers`, in the older nested form
 * `{ "command": { "path", "args", "env" } }`, the newer flat form
 * `{ "source": "custom", "command", "args", "env" }`, or remote `{ "url", "headers" }`.
 * Servers provided by a Zed extension (`"source": "extension"`, no command) cannot be run
 * outside Zed and are skipped. Wrap writes the gateway in the form the file already uses.
 *
 * @module
 */
import { readEntries, readEntry, SkipEntry, type EntryDialect } from './entries.js';
import { jsonFormat } from './jsonEdit.js';
import { isRecord, launchFields, type ClientFormat, type GatewayLaunch } from './types.js';
import { noVariables } from './variables.js';

const dialect: EntryDialect = { urlKeys: { url: 'infer' }, resolve: noVariables, silentKeys: ['source'] };

/** True when `raw` is an entry in the older nested `command: { path }` form. */
function isNested(raw: unknown): raw is Record<string, unknown> & { command: Record<string, unknown> } {
  return isRecord(raw) && isRecord(raw['command']);
}

function readZedEntry(id: string, raw: unknown): ReturnType<typeof readEntry> {
  if (isRecord(raw) && raw['source'] === 'extension') throw new SkipEntry('it is provided by a Zed extension, which only Zed can run');
  if (!isNested(raw)) return readEntry(id, raw, dialect);
  const { path, args, env, ...restCommand } = raw.command;
  const { command: _command, ...rest } = raw;
  if (typeof path !== 'string') throw new SkipEntry('command.path is not a string');
  const notes = Object.keys(restCommand).map((k) => `option ${JSON.stringify(`command.${k}`)} has no Switchboard equivalent; not carried over`);
  return readEntry(id, { ...rest, command: path, ...(args === undefined ? {} : { args }), ...(env === undefined ? {} : { env }) }, dialect, notes);
}

function gatewayEntry(launch: GatewayLaunch, section: unknown): unknown {
  const nested = isRecord(section) && Object.values(section).some(isNested);
  return nested ? { command: { path: launch.command, args: launch.args, env: launch.env ?? {} } } : { source: 'custom', ...launchFields(launch) };
}

/** The Zed format. */
export function zedFormat(): ClientFormat {
  return jsonFormat({
    sectionPath: ['context_servers'],
    read: (section) => readEntries(section, dialect, readZedEntry),
    gatewayEntry,
  });
}
