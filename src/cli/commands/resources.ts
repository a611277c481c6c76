/**
 * `switchboard resources <server>` lists a server's resources and resource templates (URI,
 * name, MIME type, description), or with `--json` the raw lists.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources
 * @module
 */
import type { Resource, ResourceTemplate } from '../../protocol/model/resource.js';
import { CLIENT_NOTES, CLIENT_OPTIONS, noMorePositionals, SERVER_POSITIONAL } from '../clientConnect.js';
import { runClientCommand } from '../clientSession.js';
import { defineCommand } from '../command.js';
import { alignedRows, columnWidth } from '../listFormat.js';

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

/** `switchboard resources`. */
export const command = defineCommand({
  name: 'resources',
  summary: 'list the resources and resource templates of an MCP server',
  usage: ['[options] <server>', '[options] -- <command> [args...]'],
  description: `Connects to an MCP server and lists its resources and resource templates: URI, name, MIME
type and a one-line description. Read one with switchboard read <server> <uri>.`,
  positionals: [SERVER_POSITIONAL],
  options: { json: { type: 'boolean', description: 'print the raw lists (JSON) instead' }, ...CLIENT_OPTIONS },
  notes: `${CLIENT_NOTES}

Exit status: 0 on success, 1 when the server cannot be reached or answers with an error.`,
  run: (parsed) =>
    runClientCommand(parsed, noMorePositionals, async ({ client, args }) => {
      const hasResources = client.serverCapabilities?.['resources'] !== undefined;
      const resources = hasResources ? await client.listResources() : [];
      const templates = hasResources ? await client.listResourceTemplates() : [];
      if (args.options['json'] === true) process.stdout.write(`${JSON.stringify({ resources, resourceTemplates: templates }, null, 2)}\n`);
      else process.stdout.write(formatResourceList(resources, templates).join('\n') + '\n');
      return 0;
    }),
});
