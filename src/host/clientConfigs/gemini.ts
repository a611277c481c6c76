/**
 * Gemini CLI's `settings.json` (`~/.gemini/settings.json`, project `.gemini/settings.json`):
 * `mcpServers` with `httpUrl` for Streamable HTTP and `url` for the legacy HTTP+SSE transport
 * (unless `type` says `http`), and `$NAME` / `${NAME}` variables. Its `timeout`, `trust`,
 * `includeTools` and `excludeTools` are noted, not carried over.
 *
 * @module
 */
import { readEntries } from './entries.js';
import { jsonFormat } from './jsonEdit.js';
import { launchFields, type ClientFormat } from './types.js';
import { plainNames } from './variables.js';

/** The Gemini CLI format. */
export function geminiFormat(): ClientFormat {
  return jsonFormat({
    sectionPath: ['mcpServers'],
    read: (section) => readEntries(section, { urlKeys: { httpUrl: 'http', url: 'sse' }, resolve: plainNames, bareVariables: true }),
    gatewayEntry: launchFields,
  });
}
