/**
 * `switchboard demo web|mail`: the two small stdio servers of the demo that `npm start` runs
 * (`examples/switchboard.json`): an offline web (`fetch_page`, one page of which carries a
 * prompt injection; `--rug-pull-after N` changes a tool description after N calls) and a mail server whose
 * `send_email` appends to an outbox file. Together with the real filesystem and memory servers
 * they make the lethal trifecta, the consent prompt and a rug pull visible in five minutes.
 *
 * @module
 */
import type { McpServer } from '../../server/mcpServer.js';
import { StdioServerTransport } from '../../transport/stdio/server.js';
import { createLineLogger } from '../../util/logger.js';
import { UsageError } from '../args.js';
import { createMailDemoServer } from '../../demo/story/mail.js';
import { createWebDemoServer } from '../../demo/story/web.js';
import { defineCommand, type ParsedCommand } from '../command.js';

/** `switchboard demo`. */
export const command = defineCommand({
  name: 'demo',
  summary: "run one of the demo's small servers over stdio (web, mail)",
  usage: ['web [--rug-pull-after N]', 'mail --outbox FILE'],
  description:
    "Runs one of the two small servers of the demo gateway (examples/switchboard.json) over stdin/stdout:\n" +
    '  web   an offline web: fetch_page returns canned pages, one of which carries a prompt injection\n' +
    '  mail  send_email appends each message to the --outbox file (nothing is sent)',
  positionals: [{ name: 'web | mail', description: 'which server' }],
  options: {
    'rug-pull-after': { type: 'string', value: 'N', description: 'web: after N calls, fetch_page changes its own description (a rug pull the gateway quarantines); 0 = from the start' },
    outbox: { type: 'string', value: 'FILE', description: 'mail: the outbox file (one JSON line a message)' },
    'log-level': { type: 'string', value: 'L', description: 'debug | info | warn | error (logs go to stderr)', default: 'warn' },
  },
  run: runDemo,
});

/** Runs the chosen server until the stdio peer goes away. */
async function runDemo(parsed: ParsedCommand): Promise<void> {
  const [which, ...rest] = parsed.positionals;
  if (rest.length > 0 || parsed.afterDash !== undefined) throw new UsageError(`unexpected argument ${rest[0] ?? '--'}`);
  const level = parsed.options['log-level'] ?? 'warn';
  if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') throw new UsageError(`invalid --log-level ${String(level)}`);
  const logger = createLineLogger((line) => process.stderr.write(line), level);
  let server: McpServer;
  if (which === 'web') {
    if (parsed.options['outbox'] !== undefined) throw new UsageError('--outbox belongs to the mail server');
    const after = parsed.options['rug-pull-after'];
    if (after !== undefined && (typeof after !== 'string' || !/^\d{1,6}$/.test(after))) throw new UsageError(`--rug-pull-after takes a number of calls, not ${String(after)}`);
    const rugPullAfter = after === undefined ? undefined : Number(after);
    server = createWebDemoServer({ logger, ...(rugPullAfter === undefined ? {} : { rugPullAfter }) });
  } else if (which === 'mail') {
    const outbox = parsed.options['outbox'];
    if (typeof outbox !== 'string' || outbox === '') throw new UsageError('the mail server needs --outbox FILE');
    if (parsed.options['rug-pull-after'] !== undefined) throw new UsageError('--rug-pull-after belongs to the web server');
    server = createMailDemoServer({ logger, outbox });
  } else {
    throw new UsageError(which === undefined ? 'name the server: web or mail' : `unknown demo server ${which}: choose web or mail`);
  }
  const connection = await server.connect(new StdioServerTransport({ input: process.stdin, output: process.stdout, logger }));
  await new Promise<void>((resolve) => connection.onClose(() => resolve()));
}
