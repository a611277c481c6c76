/**
 * `switchboard consent list | approve | deny`: the person's channel for calls waiting for
 * consent in a running gateway. It talks to the gateway's consent HTTP API (the URL in
 * `<stateDir>/consent-url`, or `--url`) with the admin token (`<stateDir>/admin-token`),
 * never with the MCP bearer token, and no MCP tool, prompt, resource or method can do any of
 * this.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { describeConsentRequest } from '../../host/consent/consentText.js';
import type { ConsentRequest, GrantScope } from '../../host/consent/consentTypes.js';
import { CliFailure, listOption, UsageError } from '../args.js';
import { ADMIN_TOKEN_FILE, CONSENT_URL_FILE } from '../gatewayConsent.js';
import { configFileOption } from '../userFolder.js';
import { loadConfig } from '../hostSetup.js';
import { readStateSecret } from '../stateSecret.js';
import { defineCommand, type ParsedCommand } from '../command.js';

/** `switchboard consent`. */
export const command = defineCommand({
  name: 'consent',
  summary: "answer calls waiting for a person's consent: list | approve | deny",
  usage: ['<list|approve|deny> [id] [options]'],
  description: `Answers the calls a running gateway holds for a person's consent (a policy "ask", or a call
listed in switchboard.consent.ask). The agent cannot answer: this uses the admin token.`,
  positionals: [
    { name: 'list', description: 'every waiting request: server, tool, the full arguments, the reasons' },
    { name: 'approve <id>', description: 'approve it; by default only this call, once (widen with --session, --tool, --pattern, --until, --for)' },
    { name: 'deny <id>', description: 'deny it (with --reason TEXT)' },
  ],
  options: {
    session: { type: 'boolean', description: 'approve: ... and the same call again in this MCP session' },
    tool: { type: 'boolean', description: 'approve: any arguments of this tool (with --session or --until/--for)' },
    pattern: {
      type: 'string',
      multiple: true,
      value: 'NAME=GLOB',
      description: "approve: arguments matching: NAME's string value matches GLOB (* any run, ? one character); every other argument must be equal",
    },
    until: { type: 'string', value: 'ISO', description: 'approve: until then, in any session of the same agent' },
    for: { type: 'string', value: 'DURATION', description: 'approve: for this long (e.g. 30m, 2h, 1d), in any session of the same agent' },
    reason: { type: 'string', value: 'TEXT', description: 'deny: the reason the caller is given' },
    config: { type: 'string', value: 'FILE', description: "the gateway's config; its stateDir holds admin-token and consent-url", default: "./switchboard.json, else the running gateway's, else the per-user one" },
    url: { type: 'string', value: 'URL', description: "the gateway's consent API base", default: 'from consent-url' },
  },
  run: runConsent,
});

/** Runs the command. */
async function runConsent({ options, positionals }: ParsedCommand): Promise<void> {
  const [action, id, ...extra] = positionals;
  if (action === undefined || !['list', 'approve', 'deny'].includes(action)) throw new UsageError('which action: list, approve or deny?');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  if (action !== 'list' && id === undefined) throw new UsageError(`${action} needs a request id (see switchboard consent list)`);
  const scope = action === 'approve' ? scopeOf(options) : undefined;
  const config = await loadConfig(await configFileOption(options['config'], true));
  const token = await readStateSecret(config.stateDir, ADMIN_TOKEN_FILE);
  if (token === undefined) throw new CliFailure(`No admin token in ${resolvePath(config.stateDir, ADMIN_TOKEN_FILE)}: is a gateway with a consent queue running on this config?`);
  const base = typeof options['url'] === 'string' ? options['url'] : await readUrl(config.stateDir);
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    let response: Response;
    try {
      response = await fetch(new URL(path, base), {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (error) {
      throw new CliFailure(`Cannot reach the gateway's consent API at ${base} (${error instanceof Error ? error.message : String(error)}): is the gateway running?`);
    }
    const value = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw new CliFailure(`The gateway refused: HTTP ${response.status} ${typeof value['error'] === 'string' ? value['error'] : ''}`.trim());
    return value;
  };
  if (action === 'list') {
    const requests = (await call('GET', 'consent/requests'))['requests'] as ConsentRequest[];
    if (requests.length === 0) return void process.stdout.write('no requests waiting\n');
    for (const r of requests) process.stdout.write(`${describeConsentRequest(r)}\n\n`);
    return;
  }
  const path = `consent/requests/${encodeURIComponent(id as string)}/${action}`;
  if (action === 'approve') {
    await call('POST', path, { scope });
    process.stdout.write(`approved ${id as string} (${describeScope(scope as GrantScope)})\n`);
  } else {
    await call('POST', path, typeof options['reason'] === 'string' ? { reason: options['reason'] } : {});
    process.stdout.write(`denied ${id as string}\n`);
  }
}

/** The scope the flags ask for. */
export function scopeOf(options: Readonly<Record<string, string | boolean | readonly string[]>>, now: number = Date.now()): GrantScope {
  const patterns: Record<string, string> = {};
  for (const p of listOption(options['pattern'])) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--pattern ${JSON.stringify(p)}: expected NAME=GLOB`);
    patterns[p.slice(0, eq)] = p.slice(eq + 1);
  }
  const widened = Object.keys(patterns).length > 0 || options['tool'] === true;
  if (Object.keys(patterns).length > 0 && options['tool'] === true) throw new UsageError('--tool and --pattern exclude each other');
  let expiresAt: string | undefined;
  if (typeof options['until'] === 'string') {
    if (!Number.isFinite(Date.parse(options['until']))) throw new UsageError(`--until ${options['until']}: not an ISO 8601 time`);
    expiresAt = new Date(Date.parse(options['until'])).toISOString();
  }
  if (typeof options['for'] === 'string') {
    const m = /^(\d+)(s|m|h|d)$/.exec(options['for']);
    if (m === null) throw new UsageError(`--for ${options['for']}: expected a duration like 30m, 2h or 1d`);
    expiresAt = new Date(now + Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd']).toISOString();
  }
  const duration = options['session'] === true ? 'session' : expiresAt !== undefined ? 'until' : 'once';
  if (widened && duration === 'once') throw new UsageError('--tool and --pattern need --session, --until or --for (how long the wider approval lasts)');
  const match = options['tool'] === true ? 'tool' : widened ? 'pattern' : 'call';
  return { match, duration, ...(match === 'pattern' ? { patterns } : {}), ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

function describeScope(scope: GrantScope): string {
  const what = scope.match === 'call' ? 'this exact call' : scope.match === 'tool' ? 'this tool, any arguments' : `arguments matching ${JSON.stringify(scope.patterns)}`;
  const when = scope.duration === 'once' ? 'once' : scope.duration === 'session' ? `in this session${scope.expiresAt !== undefined ? ` until ${scope.expiresAt}` : ''}` : `until ${scope.expiresAt ?? '?'}`;
  return `${what}, ${when}`;
}

async function readUrl(stateDir: string): Promise<string> {
  const file = resolvePath(stateDir, CONSENT_URL_FILE);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    throw new CliFailure(`No ${file}: start the gateway (with the queue or webhook consent provider) first, or give --url`);
  }
}
