/**
 * `switchboard unwrap <client>`: puts the client's own servers back from the backup `wrap`
 * made, keeping whatever else changed in the file since. Idempotent.
 *
 * @module
 */
import { latestBackup, readIfExists, wrapTarget, writeAtomic } from '../clientFiles.js';
import { CLIENT_NAMES } from '../clientLocations.js';
import { defineCommand, type ParsedCommand } from '../command.js';

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** `switchboard unwrap`. */
export const command = defineCommand({
  name: 'unwrap',
  summary: 'give a wrapped MCP client its own servers back',
  usage: ['<client> [--project DIR]'],
  description: `Gives an MCP client its own servers back: the server list of the latest
<file>.switchboard-backup-* replaces the "switchboard" entry; every other change made to the file
since wrap is kept. Unwrapping a client that is not wrapped changes nothing. The Switchboard config
is left as it is.`,
  positionals: [{ name: '<client>', description: CLIENT_NAMES.join(', ') }],
  options: {
    project: { type: 'string', value: 'DIR', description: "unwrap the project's config instead of the user's" },
  },
  run: unwrap,
});

/** Runs `unwrap`; resolves with the exit code. */
function unwrap(args: ParsedCommand): Promise<number> {
  const { location, text } = wrapTarget(args);
  const { file, format } = location;
  if (!format.parse(text, file).wrapped) {
    out(`${file} is not wrapped (no "switchboard" server); nothing changed`);
    return Promise.resolve(0);
  }
  const backup = latestBackup(file);
  if (backup === undefined) throw new Error(`${file} is wrapped but no ${file}.switchboard-backup-* is left to restore from`);
  const result = format.unwrap(text, file, readIfExists(backup) ?? '');
  if (result.changed) writeAtomic(file, result.text);
  out(`restored the servers of ${file} from ${backup}`);
  return Promise.resolve(0);
}
