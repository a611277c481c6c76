#!/usr/bin/env node
/**
 * The `switchboard` command line.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { UsageError } from './args.js';
import { everythingCommand, everythingHelp } from './everythingCommand.js';

const help = `Usage: switchboard <command> [options]

Commands:
  everything    run the demo MCP server (Streamable HTTP or stdio)

Options:
  --help        show help (also: switchboard <command> --help)
  --version     print the version
`;

const commands: Readonly<Record<string, { run: (argv: readonly string[]) => Promise<void>; help: string }>> = {
  everything: { run: everythingCommand, help: everythingHelp },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const command = commands[name];
  if (command === undefined) {
    process.stderr.write(`switchboard: unknown command ${JSON.stringify(name)}\n\n${help}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  try {
    await command.run(rest);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`switchboard ${name}: ${error.message}\n\n${command.help}`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchboard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
