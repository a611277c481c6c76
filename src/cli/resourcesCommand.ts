/**
 * `switchboard resources <server>` lists a server's resources and resource templates (URI,
 * name, MIME type, description); `switchboard read <server> <uri>` reads one resource and
 * prints its text (binary contents as a one-line summary), or with `--json` the raw result.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources
 * @module
 */
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import { UsageError } from './args.js';
import { CLIENT_OPTIONS_HELP, noMorePositionals, type ClientArgs } from './clientConnect.js';
import { runClientCommand } from './clientSession.js';
import { formatResourceContents } from './contentFormat.js';
import { alignedRows, columnWidth } from './listFormat.js';

/** Help text of `switchboard resources`. */
export const resourcesHelp = `Usage: switchboard resources [options] <server>
       switchboard resources [options] -- <command> [args...]

Connects to an MCP server and lists its resources and resource templates: URI, name, MIME
type and a one-line description. Read one with switchboard read <server> <uri>.

  --json              print the raw lists (JSON) instead
${CLIENT_OPTIONS_HELP}
Exit status: 0 on success, 1 when the server cannot be reached or answers with an error.
`;

/** Help text of `switchboard read`. */
export const readHelp = `Usage: switchboard read [options] <server> <uri>
       switchboard read [options] <uri> -- <command> [args...]

Connects to an MCP server, reads the resource <uri> and prints its contents: text as is,
binary contents as a one-line summary.

  --json              print the raw result (JSON)
${CLIENT_OPTIONS_HELP}
Exit status: 0 on success, 1 when the read fails.
`;

/** The description column of a resource or template: `name (mime) — description`. */
function describe(item: Resource | ResourceTemplate): string {
  const name = item.title ?? item.name;
  const mime = item.mimeType === undefined ? '' : ` (${item.mimeType})`;
  const first = (item.description ?? '').trim().split('\n')[0]?.trim() ?? '';
  return `${name}${mime}${first === '' ? '' : ` — ${first}`}`;
}

/** The lines of the listing: resources, then templates under a heading, in one column layout. */
export function formatResourceList(resources: readonly Resource[], templates: readonly ResourceTemplate[]): string[] {
  const width = columnWidth([...resources.map((r) => r.uri), ...templates.map((t) => t.uriTemplate)]);
  const lines = resources.length > 0 ? alignedRows(resources.map((r) => [r.uri, describe(r)]), width) : ['(no resources)'];
  if (templates.length > 0) lines.push('', 'Templates:', ...alignedRows(templates.map((t) => [t.uriTemplate, describe(t)]), width));
  return lines;
}

/** Runs `switchboard resources`; resolves with the exit code. */
export function resourcesCommand(argv: readonly string[]): Promise<number> {
  return runClientCommand(argv, { json: 'boolean' }, noMorePositionals, async ({ client, args }) => {
    const hasResources = client.serverCapabilities?.['resources'] !== undefined;
    const resources = hasResources ? await client.listResources() : [];
    const templates = hasResources ? await client.listResourceTemplates() : [];
    if (args.options['json'] === true) process.stdout.write(`${JSON.stringify({ resources, resourceTemplates: templates }, null, 2)}\n`);
    else process.stdout.write(formatResourceList(resources, templates).join('\n') + '\n');
    return 0;
  });
}

/** Runs `switchboard read`; resolves with the exit code. */
export function readCommand(argv: readonly string[]): Promise<number> {
  const check = (args: ClientArgs): string => {
    const [uri, extra] = args.rest;
    if (uri === undefined) throw new UsageError('missing <uri>');
    if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
    return uri;
  };
  return runClientCommand(argv, { json: 'boolean' }, check, async ({ client, args }, uri) => {
    const result = await client.readResource(uri);
    if (args.options['json'] === true) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return 0;
    }
    const lines = result.contents.flatMap((c) => formatResourceContents(c as Record<string, unknown>));
    process.stdout.write(lines.length > 0 ? `${lines.join('\n')}\n` : '');
    return 0;
  });
}
