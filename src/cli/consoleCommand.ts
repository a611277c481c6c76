/**
 * `switchboard console`: prints (and opens in a browser) the web console of a running
 * gateway. The URL is the one the gateway wrote to `<stateDir>/console-url` when it started
 * (its HTTP port, or over `--stdio` its loopback admin listener); sign in with the admin token
 * in `<stateDir>/admin-token`, never the MCP bearer token.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { CliFailure, parseArgs, UsageError } from './args.js';
import { ADMIN_TOKEN_FILE } from './gatewayConsent.js';
import { CONSOLE_URL_FILE } from './gatewayConsole.js';
import { loadConfig } from './hostSetup.js';

/** Help text of the command. */
export const consoleHelp = `Usage: switchboard console [--config FILE] [--print] [--page PAGE]

Opens the web console of the running gateway of this config in a browser (servers, tools and
their trust, review of changed definitions, consent requests live, the audit log, the policy,
an inspector). Sign in with the admin token in <stateDir>/admin-token; the MCP bearer token
never opens it.

  --config FILE   the gateway's config (default ./switchboard.json)
  --print         only print the URL
  --page PAGE     open this page: overview, tools, review, consent, audit, policy, inspector
`;

const PAGES = ['overview', 'tools', 'review', 'consent', 'audit', 'policy', 'inspector'];

/** Runs the command. */
export async function consoleCommand(argv: readonly string[]): Promise<void> {
  const { options, positionals } = parseArgs(argv, { config: 'string', print: 'boolean', page: 'string' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const page = options['page'];
  if (page !== undefined && (typeof page !== 'string' || !PAGES.includes(page))) throw new UsageError(`--page is one of ${PAGES.join(', ')}`);
  const config = await loadConfig(resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json'));
  const base = await consoleUrl(config.stateDir);
  const url = page === undefined ? base : `${base}#/${page}`;
  process.stdout.write(`${url}\nSign in with the admin token in ${resolvePath(config.stateDir, ADMIN_TOKEN_FILE)}\n`);
  if (options['print'] !== true && !(await openInBrowser(url))) process.stderr.write('Could not start a browser; open the URL above yourself.\n');
}

/** The console URL a running gateway wrote to `<stateDir>/console-url`; a clear failure when there is none. */
export async function consoleUrl(stateDir: string): Promise<string> {
  let text: string;
  try {
    text = (await readFile(resolvePath(stateDir, CONSOLE_URL_FILE), 'utf8')).trim();
  } catch {
    throw new CliFailure(`No console URL in ${resolvePath(stateDir, CONSOLE_URL_FILE)}: start the gateway first (switchboard gateway), with switchboard.console on (the default).`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliFailure(`${resolvePath(stateDir, CONSOLE_URL_FILE)} does not hold a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliFailure(`${resolvePath(stateDir, CONSOLE_URL_FILE)} does not hold an http(s) URL`);
  return url.href;
}

/** Starts the platform's URL opener; resolves false when there is none. The URL is one argument, never shell text. */
export function openInBrowser(url: string): Promise<boolean> {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
