/**
 * The `switchboard` commands, in the order `switchboard --help` and the reference list them:
 * name → loader of `commands/<name>.ts`. Each command is loaded only when it runs, so
 * `switchboard everything --stdio` (spawned by an MCP host, where start-up time is felt)
 * loads neither the HTTP client nor OAuth; help for every command loads them all.
 *
 * @module
 */
import type { Command } from './command.js';

type Loader = () => Promise<{ readonly command: Command }>;

/** Every command by name, in help order. */
export const COMMANDS: Readonly<Record<string, Loader>> = {
  everything: () => import('./commands/everything.js'),
  demo: () => import('./commands/demo.js'),
  dev: () => import('./commands/dev.js'),
  tools: () => import('./commands/tools.js'),
  call: () => import('./commands/call.js'),
  resources: () => import('./commands/resources.js'),
  read: () => import('./commands/read.js'),
  prompts: () => import('./commands/prompts.js'),
  prompt: () => import('./commands/prompt.js'),
  gateway: () => import('./commands/gateway.js'),
  login: () => import('./commands/login.js'),
  logout: () => import('./commands/logout.js'),
  connections: () => import('./commands/connections.js'),
  scan: () => import('./commands/scan.js'),
  import: () => import('./commands/import.js'),
  pins: () => import('./commands/pins.js'),
  config: () => import('./commands/config.js'),
  consent: () => import('./commands/consent.js'),
  inspect: () => import('./commands/inspect.js'),
  keygen: () => import('./commands/keygen.js'),
  sign: () => import('./commands/sign.js'),
  wrap: () => import('./commands/wrap.js'),
  unwrap: () => import('./commands/unwrap.js'),
  audit: () => import('./commands/audit.js'),
  anchor: () => import('./commands/anchor.js'),
  policy: () => import('./commands/policy.js'),
  console: () => import('./commands/console.js'),
};

/** Loads every command's declaration, in help order. */
export async function loadCommands(): Promise<Command[]> {
  return Promise.all(Object.values(COMMANDS).map(async (load) => (await load()).command));
}
