/**
 * `switchboard inspect <server>`: the web console's Inspector for one MCP server given on the
 * command line (an `http(s)://` URL, a stdio command line, or the argv after `--`, as for
 * `switchboard tools`). The server is put behind a gateway with the full chain (audit, pins,
 * scanner, policy, consent queue) from a config written to a fresh state folder, and the
 * console opens at `#/inspector/<id>`: every call made from the page goes through the chain and
 * is audited. The state folder is removed when the command ends, unless `--state` names one.
 *
 * The console needs its admin token (printed with the URL); the MCP bearer token does not
 * open it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 * @module
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { portOption, UsageError } from '../args.js';
import { parseClientArgs, noMorePositionals, SERVER_POSITIONAL, type ServerTarget } from '../clientConnect.js';
import { defineCommand } from '../command.js';
import { consoleUrl, openInBrowser } from '../consoleUrl.js';

/** Commands that run a script or package named by their first argument. */
const RUNNERS = new Set(['node', 'nodejs', 'deno', 'bun', 'python', 'python3', 'uv', 'uvx', 'npx', 'tsx', 'ruby', 'java']);

/**
 * An id for the server: `--name`, else the host's first label, the script a runner (node,
 * python, npx, ...) is given, or the command's base name; made id-safe.
 */
export function inspectServerId(target: ServerTarget, name: unknown): string {
  if (typeof name === 'string') {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name)) throw new UsageError(`invalid --name ${JSON.stringify(name)} (letters, digits, _ and -, at most 64)`);
    return name;
  }
  const program = (path: string): string => path.split(/[\\/]/).pop() ?? '';
  let base: string;
  if (target.kind === 'http') base = new URL(target.url).hostname.split('.')[0] ?? '';
  else if (RUNNERS.has(program(target.command).replace(/\.exe$/, ''))) base = program(target.args.find((a) => !a.startsWith('-')) ?? target.command);
  else base = program(target.command);
  const id = base.replace(/\.[cm]?[jt]s$/, '').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 64);
  return id === '' ? 'server' : id;
}

/** The `mcpServers` entry of the target. */
export function inspectServerEntry(target: ServerTarget, headers: Readonly<Record<string, string>>): Record<string, unknown> {
  if (target.kind === 'http') return { url: target.url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  return { command: target.command, args: [...target.args], cwd: process.cwd() };
}

/** `switchboard inspect`. */
export const command = defineCommand({
  name: 'inspect',
  summary: "open the web console's Inspector for one server (URL or stdio command) behind a gateway",
  usage: ['[options] <server>', '[options] -- <command> [args...]'],
  description: `Starts a gateway in front of one MCP server (an http(s):// URL or a stdio command) with the
full chain (audit, pins, scanner, policy, consent queue) and opens the web console's
Inspector for it: browse its tools, resources, prompts and templates, call a tool from a
form made from its input schema, and read the result. Every call is audited.`,
  positionals: [SERVER_POSITIONAL],
  options: {
    name: { type: 'string', value: 'ID', description: "the server's id in the console", default: 'from the command or host name' },
    port: { type: 'string', value: 'N', description: "the gateway's port on 127.0.0.1", default: '0: a free one' },
    state: { type: 'string', value: 'DIR', description: "keep the gateway's state (pins, audit log, tokens) in DIR instead of a temporary folder removed at exit" },
    print: { type: 'boolean', description: 'print the console URL instead of opening a browser' },
    header: { type: 'string', multiple: true, value: 'K:V', description: 'an HTTP header for the server (http(s) servers only)' },
  },
  notes: 'Sign in with the admin token from the file it names. Stop with Ctrl-C.',
  async run(parsed) {
    // The gateway keeps serving until the process is stopped.
    const args = parseClientArgs(parsed);
    noMorePositionals(args);
    const id = inspectServerId(args.target, args.options['name']);
    const port = portOption(args.options['port'], 0);
    const keep = typeof args.options['state'] === 'string';
    const dir = keep ? resolvePath(String(args.options['state'])) : await mkdtemp(join(tmpdir(), 'switchboard-inspect-'));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (!keep) process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'switchboard.json');
    const config = { mcpServers: { [id]: inspectServerEntry(args.target, args.headers) }, switchboard: { namespacing: 'never', stateDir: '.switchboard', consent: { providers: ['queue'] } } };
    await writeFile(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    const { gatewayCommand } = await import('../gatewayCommand.js');
    // yes: the person typed the server's command line; the approval is recorded in the audit log.
    await gatewayCommand({ config: file, port: String(port), host: '127.0.0.1', yes: true, 'log-level': 'warn' });
    // The HTTP gateway has published its console URL by the time it returns.
    const url = `${await consoleUrl(join(dir, '.switchboard'))}#/inspector/${encodeURIComponent(id)}`;
    process.stdout.write(`Inspector: ${url}\nAdmin token: ${join(dir, '.switchboard', 'admin-token')}\n`);
    if (args.options['print'] !== true && !(await openInBrowser(url))) process.stderr.write('Could not start a browser; open the URL above yourself.\n');
  },
});
