/**
 * `switchboard read <server> <uri>` reads one resource and prints its text (binary contents as
 * a one-line summary), or with `--json` the raw result.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources
 * @module
 */
import { UsageError } from '../args.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, SERVER_POSITIONAL, type ClientArgs } from '../clientConnect.js';
import { runClientCommand } from '../clientSession.js';
import { defineCommand } from '../command.js';
import { formatResourceContents } from '../contentFormat.js';

function check(args: ClientArgs): string {
  const [uri, extra] = args.rest;
  if (uri === undefined) throw new UsageError('missing <uri>');
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  return uri;
}

/** `switchboard read`. */
export const command = defineCommand({
  name: 'read',
  summary: 'read one resource of an MCP server and print its contents',
  usage: ['[options] <server> <uri>', '[options] <uri> -- <command> [args...]'],
  description: `Connects to an MCP server, reads the resource <uri> and prints its contents: text as is,
binary contents as a one-line summary.`,
  positionals: [SERVER_POSITIONAL, { name: '<uri>', description: 'the resource URI' }],
  options: { json: { type: 'boolean', description: 'print the raw result (JSON)' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the read fails.`,
  run: (parsed) =>
    runClientCommand(parsed, check, async ({ client, args }, uri) => {
      const result = await client.readResource(uri);
      if (args.options['json'] === true) {
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return 0;
      }
      const lines = result.contents.flatMap((c) => formatResourceContents(c as Record<string, unknown>));
      process.stdout.write(lines.length > 0 ? `${lines.join('\n')}\n` : '');
      return 0;
    }),
});
