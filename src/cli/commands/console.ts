/**
 * `switchboard console`: prints (and opens in a browser) the web console of a running
 * gateway. The URL is the one the gateway wrote to `<stateDir>/console-url` when it started
 * (its HTTP port, or over `--stdio` its loopback admin listener); sign in with the admin token
 * in `<stateDir>/admin-token`, never the MCP bearer token.
 *
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../args.js';
import { defineCommand, noPositionals } from '../command.js';
import { liveConsoleUrl, openInBrowser } from '../consoleUrl.js';
import { ADMIN_TOKEN_FILE } from '../gatewayConsent.js';
import { configFileOption } from '../userFolder.js';
import { loadConfig } from '../hostSetup.js';

const PAGES = ['overview', 'tools', 'review', 'consent', 'audit', 'policy', 'inspector'];

/** `switchboard console`. */
export const command = defineCommand({
  name: 'console',
  summary: 'open the web console of a running gateway (or print its URL)',
  usage: ['[--config FILE] [--print] [--page PAGE]'],
  description: `Opens the web console of the running gateway of this config in a browser (servers, tools and
their trust, review of changed definitions, consent requests live, the audit log, the policy,
an inspector). Sign in with the admin token in <stateDir>/admin-token; the MCP bearer token
never opens it.`,
  options: {
    config: { type: 'string', value: 'FILE', description: "the gateway's config", default: "./switchboard.json, else the running gateway's, else the per-user one" },
    print: { type: 'boolean', description: 'only print the URL' },
    page: { type: 'string', value: 'PAGE', description: `open this page: ${PAGES.join(', ')}` },
  },
  async run(parsed) {
    noPositionals(parsed);
    const { options } = parsed;
    const page = options['page'];
    if (page !== undefined && (typeof page !== 'string' || !PAGES.includes(page))) throw new UsageError(`--page is one of ${PAGES.join(', ')}`);
    const config = await loadConfig(await configFileOption(options['config'], true));
    const base = await liveConsoleUrl(config.stateDir);
    const url = page === undefined ? base : `${base}#/${page}`;
    process.stdout.write(`${url}\nSign in with the admin token in ${resolvePath(config.stateDir, ADMIN_TOKEN_FILE)}\n`);
    if (options['print'] !== true && !(await openInBrowser(url))) process.stderr.write('Could not start a browser; open the URL above yourself.\n');
  },
});
