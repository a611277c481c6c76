#!/usr/bin/env node
/**
 * The `switchboard` command line.
 *
 * @module
 */
import { describeError } from '../util/errors.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { CliFailure, UsageError } from './args.js';

const help = `Usage: switchboard <command> [options]

Commands:
  everything    run the demo MCP server (Streamable HTTP or stdio)
  dev           run a TypeScript server file, reloading it on change (through tsx)
  tools         list the tools of an MCP server (URL or stdio command), with their arguments
  call          call one tool of an MCP server and print the result
  resources     list the resources and resource templates of an MCP server
  read          read one resource of an MCP server and print its contents
  prompts       list the prompts of an MCP server, with their arguments
  prompt        get one prompt of an MCP server and print its messages
  gateway       serve many MCP servers behind one guarded endpoint (HTTP or stdio)
  login         sign in to a remote server of the config with OAuth (tokens for the gateway)
  logout        delete the stored OAuth tokens of a remote server
  scan          scan tool definitions for poisoning and shadowing (a saved tools/list, or every configured server)
  import        print one Switchboard config with the servers of every MCP client found
  pins          review pinned definitions: list | diff | approve | reject
  consent       answer calls waiting for a person's consent: list | approve | deny
  inspect       open the web console's Inspector for one server (URL or stdio command) behind a gateway
  keygen        make a key to sign a server's manifest (Ed25519 or P-256)
  sign          sign a server's lists (or a key rotation) as a JWS
  wrap          point an MCP client at the Switchboard gateway (backup, merge, rewrite)
  unwrap        give a wrapped MCP client its own servers back
  audit         read and verify the gateway's tamper-evident audit log (tail, verify, export)
  policy        test policy rules against the requests recorded in the audit log
  console       open the web console of a running gateway (or print its URL)

Options:
  --help        show help (also: switchboard <command> --help)
  --version     print the version
`;

/** A command resolves with its exit code (void = 0); a thrown error exits 1 with its message. */
interface Command {
  readonly run: (argv: readonly string[]) => Promise<number | void>;
  readonly help: string;
}

/**
 * Each command is loaded only when it runs, so `switchboard everything --stdio` (spawned by
 * an MCP host, where start-up time is felt) loads neither the HTTP client nor OAuth.
 */
const commands: Readonly<Record<string, () => Promise<Command>>> = {
  everything: async () => {
    const m = await import('./everythingCommand.js');
    return { run: m.everythingCommand, help: m.everythingHelp };
  },
  tools: async () => {
    const m = await import('./toolsCommand.js');
    return { run: m.toolsCommand, help: m.toolsHelp };
  },
  call: async () => {
    const m = await import('./callCommand.js');
    return { run: m.callCommand, help: m.callHelp };
  },
  resources: async () => {
    const m = await import('./resourcesCommand.js');
    return { run: m.resourcesCommand, help: m.resourcesHelp };
  },
  read: async () => {
    const m = await import('./resourcesCommand.js');
    return { run: m.readCommand, help: m.readHelp };
  },
  prompts: async () => {
    const m = await import('./promptsCommand.js');
    return { run: m.promptsCommand, help: m.promptsHelp };
  },
  prompt: async () => {
    const m = await import('./promptsCommand.js');
    return { run: m.promptCommand, help: m.promptHelp };
  },
  dev: async () => {
    const m = await import('./devCommand.js');
    return { run: m.devCommand, help: m.devHelp };
  },
  gateway: async () => {
    const m = await import('./gatewayCommand.js');
    return { run: m.gatewayCommand, help: m.gatewayHelp };
  },
  login: async () => {
    const m = await import('./loginCommand.js');
    return { run: m.loginCommand, help: m.loginHelp };
  },
  logout: async () => {
    const m = await import('./loginCommand.js');
    return { run: m.logoutCommand, help: m.logoutHelp };
  },
  scan: async () => {
    const m = await import('./scanCommand.js');
    return { run: m.scanCommand, help: m.scanHelp };
  },
  import: async () => {
    const m = await import('./importCommand.js');
    return { run: m.importCommand, help: m.importHelp };
  },
  pins: async () => {
    const m = await import('./pinsCommand.js');
    return { run: m.pinsCommand, help: m.pinsHelp };
  },
  consent: async () => {
    const m = await import('./consentCommand.js');
    return { run: m.consentCommand, help: m.consentHelp };
  },
  inspect: async () => {
    const m = await import('./inspectCommand.js');
    return { run: m.inspectCommand, help: m.inspectHelp };
  },
  keygen: async () => {
    const m = await import('./signCommand.js');
    return { run: m.keygenCommand, help: m.keygenHelp };
  },
  sign: async () => {
    const m = await import('./signCommand.js');
    return { run: m.signCommand, help: m.signHelp };
  },
  wrap: async () => {
    const m = await import('./wrapCommand.js');
    return { run: m.wrapCommand, help: m.wrapHelp };
  },
  unwrap: async () => {
    const m = await import('./wrapCommand.js');
    return { run: m.unwrapCommand, help: m.unwrapHelp };
  },
  audit: async () => {
    const m = await import('./auditCommand.js');
    return { run: m.auditCommand, help: m.auditHelp };
  },
  policy: async () => {
    const m = await import('./policyCommand.js');
    return { run: m.policyCommand, help: m.policyHelp };
  },
  console: async () => {
    const m = await import('./consoleCommand.js');
    return { run: m.consoleCommand, help: m.consoleHelp };
  },
};

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${SWITCHBOARD_VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (load === undefined) {
    process.stderr.write(`switchboard: unknown command ${JSON.stringify(name)}\n\n${help}`);
    return 2;
  }
  const command = await load();
  const own = rest.indexOf('--') < 0 ? rest : rest.slice(0, rest.indexOf('--'));
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(command.help);
    return 0;
  }
  try {
    return (await command.run(rest)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`switchboard ${name}: ${error.message}\n\n${command.help}`);
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`switchboard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
