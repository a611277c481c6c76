/**
 * What a `switchboard` command is: a declaration (name, summary, usage lines, description, its
 * positionals and options, each option with its type, placeholder, description and the default
 * help shows) and a `run` that gets the parsed command line. The dispatcher (`main.ts`), the
 * help text and the generated reference (`docs/reference/commands.md`) all read the same
 * declaration, as npm's `lib/commands/<name>.js` (`params`, `usage`) and oclif's commands folder do.
 *
 * Parsing is `node:util` `parseArgs` in strict mode. A first, loose pass over its tokens turns
 * the usual slips into one line each: an unknown option names the closest declared one
 * (`unknown option --prot for gateway; did you mean --port?`), a flag given a value, a value
 * option given none or given what looks like another option.
 *
 * @module
 */
import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type ParsedArgs } from './args.js';

/** One option of a command. */
export interface OptionDeclaration {
  /** `boolean`: a flag; `string`: takes a value (`--port 8080` or `--port=8080`). */
  readonly type: 'string' | 'boolean';
  /** Repeatable: every value given, in order (string options). */
  readonly multiple?: boolean;
  /** A one-letter alias (`-n` for `--lines`). */
  readonly short?: string;
  /** The value's placeholder in help (`N`, `FILE`); string options only. */
  readonly value?: string;
  /** What the option does: one sentence or a few, wrapped by the help renderer. */
  readonly description: string;
  /** The default as help shows it (`8765`, `./switchboard.json`); the command applies it. */
  readonly default?: string;
}

/** A positional argument (or a sub-command word such as `pins approve`). */
export interface PositionalDeclaration {
  readonly name: string;
  readonly description: string;
}

/** The options of a command, by long name (without `--`). */
export type OptionDeclarations = Readonly<Record<string, OptionDeclaration>>;

/** A parsed command line: options before `--`, positionals before it, and the argv after it. */
export interface ParsedCommand extends ParsedArgs {
  /** Everything after the first `--` (undefined when there is none). */
  readonly afterDash: readonly string[] | undefined;
}

/** A `switchboard` command. `run` resolves with the exit code (void = 0). */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Usage lines without the leading `switchboard <name>` (`[options] <server>`). */
  readonly usage: readonly string[];
  /** What the command does, as preformatted text (kept as written). */
  readonly description: string;
  readonly positionals?: readonly PositionalDeclaration[];
  readonly options: OptionDeclarations;
  /** Text after the options (exit status, where state lives), preformatted. */
  readonly notes?: string;
  readonly run: (parsed: ParsedCommand) => Promise<number | void>;
}

/** Declares a command (an identity function that checks the declaration's type). */
export function defineCommand(command: Command): Command {
  return command;
}

/** `--help` / `-h`, which every command takes (handled by the dispatcher). */
export const HELP_OPTION: OptionDeclaration = { type: 'boolean', short: 'h', description: 'show this help' };

/** The edit distance of two short strings: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => (d[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The candidate closest to `word` when it is a likely typo of it (at most a third of its letters off). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  const prefix = candidates.filter((c) => word.length >= 3 && c.startsWith(word));
  if (prefix.length === 1) return prefix[0];
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/** `node:util` `parseArgs` options of a declaration. */
function nodeOptions(options: OptionDeclarations): NonNullable<ParseArgsConfig['options']> {
  const out: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries(options)) {
    out[name] = { type: o.type, ...(o.multiple === true ? { multiple: true } : {}), ...(o.short !== undefined ? { short: o.short } : {}) };
  }
  return out;
}

/**
 * Parses `argv` against `command`'s declaration. Throws {@link UsageError} with one line saying
 * what is wrong (and, for a misspelt option, what was probably meant).
 */
export function parseCommandLine(command: Pick<Command, 'name' | 'options'>, argv: readonly string[]): ParsedCommand {
  const options = nodeOptions(command.options);
  const loose = nodeParseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  for (const token of loose.tokens) {
    if (token.kind !== 'option') continue;
    const declared = Object.hasOwn(command.options, token.name) ? command.options[token.name] : undefined;
    if (declared === undefined) {
      const names = Object.keys(command.options);
      const guess = token.rawName.startsWith('--') ? closest(token.name, names) : undefined;
      throw new UsageError(`unknown option ${token.rawName} for ${command.name}${guess === undefined ? '' : `; did you mean --${guess}?`}`);
    }
    if (declared.type === 'boolean' && token.inlineValue === true) throw new UsageError(`${token.rawName} takes no value`);
    if (declared.type === 'string') {
      if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
      if (token.inlineValue !== true && token.value.startsWith('-') && token.value !== '-') {
        throw new UsageError(`${token.rawName} needs a value, not ${JSON.stringify(token.value)} (write ${token.rawName}=${token.value} if that is the value)`);
      }
    }
  }
  let strict: ReturnType<typeof nodeParseArgs<{ args: string[]; options: typeof options; strict: true; allowPositionals: true; tokens: true }>>;
  try {
    strict = nodeParseArgs({ args: [...argv], options, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    throw new UsageError((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'invalid arguments', { cause: error });
  }
  const terminator = strict.tokens.find((t) => t.kind === 'option-terminator');
  const positionals: string[] = [];
  const afterDash: string[] = [];
  for (const token of strict.tokens) {
    if (token.kind !== 'positional') continue;
    (terminator !== undefined && token.index > terminator.index ? afterDash : positionals).push(token.value);
  }
  const values = strict.values as Record<string, string | boolean | string[] | undefined>;
  const parsed: Record<string, string | boolean | readonly string[]> = {};
  for (const [name, value] of Object.entries(values)) if (value !== undefined) parsed[name] = value;
  return { options: parsed, positionals, afterDash: terminator === undefined ? undefined : afterDash };
}

/** For commands that take no positionals: throws on the first one (before or after `--`). */
export function noPositionals(parsed: ParsedCommand): void {
  const extra = parsed.positionals[0] ?? parsed.afterDash?.[0];
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
}

/** Whether `argv` asks for help (`--help` or `-h` before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  return own.includes('--help') || own.includes('-h');
}

/** Parses and runs `command` (what the dispatcher does after its help check); for tests too. */
export async function runCommand(command: Command, argv: readonly string[]): Promise<number | void> {
  return command.run(parseCommandLine(command, argv));
}

const WIDTH = 100;
const COLUMN = 24;

/** Wraps `text` to lines of at most `width` characters, words kept whole. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The left column of an option in help: `-n, --lines N`. */
export function optionLabel(name: string, option: OptionDeclaration): string {
  const value = option.type === 'string' ? ` ${option.value ?? 'VALUE'}` : '';
  return `${option.short !== undefined ? `-${option.short}, ` : ''}--${name}${value}`;
}

/** The description of an option with its default and repeatability, as help shows it. */
export function optionText(option: OptionDeclaration): string {
  const extras = [option.multiple === true ? 'repeatable' : '', option.default !== undefined ? `default ${option.default}` : ''].filter((s) => s !== '');
  return extras.length === 0 ? option.description : `${option.description} (${extras.join('; ')})`;
}

/** Two aligned columns: the label, then the text wrapped beside it (or below a long label). */
function rows(entries: readonly (readonly [string, string])[]): string {
  const out: string[] = [];
  for (const [label, text] of entries) {
    const wrapped = wrap(text, WIDTH - COLUMN);
    const first = `  ${label}`;
    if (first.length < COLUMN - 1) out.push(`${first.padEnd(COLUMN)}${wrapped.shift() ?? ''}`.trimEnd());
    else out.push(first);
    for (const line of wrapped) out.push(`${' '.repeat(COLUMN)}${line}`);
  }
  return out.join('\n');
}

/** The `--help` text of a command, generated from its declaration. */
export function commandHelp(command: Command): string {
  const usage = command.usage.map((u, i) => `${i === 0 ? 'Usage: ' : '       '}switchboard ${command.name} ${u}`.trimEnd()).join('\n');
  const parts = [usage, command.description.trimEnd()];
  if (command.positionals !== undefined && command.positionals.length > 0) {
    parts.push(`Arguments:\n${rows(command.positionals.map((p) => [p.name, p.description]))}`);
  }
  const options = Object.entries({ ...command.options, help: HELP_OPTION }).map(([name, o]) => [optionLabel(name, o), optionText(o)] as const);
  parts.push(`Options:\n${rows(options)}`);
  if (command.notes !== undefined) parts.push(command.notes.trimEnd());
  return `${parts.join('\n\n')}\n`;
}

/** The top-level `switchboard --help`: the commands with their summaries. */
export function mainHelp(commands: readonly Pick<Command, 'name' | 'summary'>[]): string {
  return `Usage: switchboard <command> [options]

Commands:
${rows(commands.map((c) => [c.name, c.summary]))}

Options:
${rows([
  ['-h, --help', 'show help (also: switchboard <command> --help)'],
  ['-v, --version', 'print the version'],
])}
`;
}
