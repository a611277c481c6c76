/**
 * The `mcpServers` JSON format that Claude Desktop (`claude_desktop_config.json`), Cursor
 * (`mcp.json`) and Claude Code (`~/.claude.json`, `.mcp.json`) share: `command`/`args`/`env`
 * for a local server, `url`/`headers` (with `type` `http` or `sse`) for a remote one. They
 * differ only in variables: Claude Desktop expands none, Cursor writes `${env:NAME}` (and
 * `${workspaceFolder}`, `${userHome}`), Claude Code `${NAME}` and `${NAME:-default}`.
 *
 * @module
 */
import type { JSONPath } from 'jsonc-parser';
import { readEntries, type EntryDialect } from './entries.js';
import { jsonFormat } from './jsonEdit.js';
import { launchFields, type ClientFormat, type GatewayLaunch, type ParseContext } from './types.js';
import { anyOf, envPrefixed, folders, noVariables, plainNames, type VariableResolver } from './variables.js';

/** The clients writing this format. */
export type McpServersClient = 'claude-desktop' | 'cursor' | 'claude-code';

function resolverFor(client: McpServersClient, context: ParseContext | undefined): VariableResolver {
  switch (client) {
    case 'claude-desktop':
      return noVariables;
    case 'cursor':
      return anyOf(envPrefixed, folders(context));
    case 'claude-code':
      return plainNames;
  }
}

/** The entry wrap writes: Claude Code spells out `type: "stdio"` as `claude mcp add` does. */
function gatewayEntry(client: McpServersClient, launch: GatewayLaunch): unknown {
  return client === 'claude-code' ? { type: 'stdio', ...launchFields(launch) } : launchFields(launch);
}

/**
 * The format of `client`, its servers at `sectionPath` (default `['mcpServers']`; Claude
 * Code's per-project servers in `~/.claude.json` are at `['projects', <dir>, 'mcpServers']`).
 */
export function mcpServersFormat(client: McpServersClient, sectionPath: JSONPath = ['mcpServers']): ClientFormat {
  return jsonFormat({
    sectionPath,
    read(section, _root, context) {
      const dialect: EntryDialect = { urlKeys: { url: 'infer' }, resolve: resolverFor(client, context) };
      return readEntries(section, dialect);
    },
    gatewayEntry: (launch) => gatewayEntry(client, launch),
  });
}
