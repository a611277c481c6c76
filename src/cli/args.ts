/**
 * A small, strict command-line parser: `--flag`, `--key value`, `--key=value`, and
 * positionals. Unknown options are errors, not silently ignored.
 *
 * @module
 */

/** The declared options of a command: name → kind (`list`: a repeatable string option). */
export type OptionSpec = Readonly<Record<string, 'boolean' | 'string' | 'list'>>;

/** Parsed arguments (a `list` option holds every value given, in order). */
export interface ParsedArgs {
  readonly options: Readonly<Record<string, string | boolean | readonly string[]>>;
  readonly positionals: readonly string[];
}

/** A usage error: the CLI prints it with the command's help and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure already phrased for the user (what happened, what to do): printed alone, exit 1. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/** Parses `argv` against `spec`. Throws {@link UsageError}. */
export function parseArgs(argv: readonly string[], spec: OptionSpec): ParsedArgs {
  const options: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = spec[name];
    if (kind === undefined) throw new UsageError(`unknown option --${name}`);
    if (kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      options[name] = true;
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (kind === 'list') {
      const list = options[name];
      options[name] = Array.isArray(list) ? [...list, value] : [value];
    } else options[name] = value;
  }
  return { options, positionals };
}

/** The values of a `list` option (none when absent). */
export function listOption(value: string | boolean | readonly string[] | undefined): readonly string[] {
  return Array.isArray(value) ? value : [];
}

/** Reads a port option: an integer in 0..65535. */
export function portOption(value: string | boolean | readonly string[] | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port ${String(value)}`);
  return port;
}
