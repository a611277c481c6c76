#!/usr/bin/env node
/**
 * The `switchboard` command line: finds the command (`registry.ts`), answers `--help` from its
 * declaration, parses the rest (`command.ts`) and runs it. A usage error is one line and a
 * pointer to the command's help, never the whole usage.
 *
 * @module
 */
import { describeError } from '../util/errors.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { CliFailure, UsageError } from './args.js';
import { closest, commandHelp, mainHelp, parseCommandLine, wantsHelp } from './command.js';
import { COMMANDS, loadCommands } from './registry.js';


async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp(await loadCommands()));
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${SWITCHBOARD_VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined) {
    const guess = closest(name, Object.keys(COMMANDS));
    const what = name.startsWith('-') ? `unknown option ${name}` : `unknown command ${JSON.stringify(name)}`;
    process.stderr.write(`switchboard: ${what}${guess === undefined ? '' : `; did you mean ${guess}?`}\nRun 'switchboard --help' for the list of commands.\n`);
    return 2;
  }
  const { command } = await load();
  if (wantsHelp(rest)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  try {
    return (await command.run(parseCommandLine(command, rest))) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      const message = error.message.startsWith('unknown option ') ? `switchboard: ${error.message}` : `switchboard ${name}: ${error.message}`;
      process.stderr.write(`${message}\nRun 'switchboard ${name} --help' for usage.\n`);
      return 2;
    }
    if (error instanceof CliFailure) {
      process.stderr.write(`switchboard ${name}: ${error.message}\n`);
      return 1;
    }
    if (name === 'everything') throw error;
    process.stderr.write(`switchboard ${name}: ${describeError(error)}\n`);
    return 1;
  }
}

// A reader that went away (`switchboard audit export | head`) is a normal end of the output, not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
});

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchboard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
