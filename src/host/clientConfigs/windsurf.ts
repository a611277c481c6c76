/**
 * Windsurf's `~/.codeium/windsurf/mcp_config.json`: the `mcpServers` format, with the URL of a
 * remote server under `serverUrl` (`url` is read too) and `${env:NAME}` variables.
 *
 * @module
 */
import { readEntries } from './entries.js';
import { jsonFormat } from './jsonEdit.js';
import { launchFields, type ClientFormat } from './types.js';
import { anyOf, envPrefixed, folders } from './variables.js';

/** The Windsurf format. */
export function windsurfFormat(): ClientFormat {
  return jsonFormat({
    sectionPath: ['mcpServers'],
    read: (section, _root, context) => readEntries(section, { urlKeys: { serverUrl: 'infer', url: 'infer' }, resolve: anyOf(envPrefixed, folders(context)) }),
    gatewayEntry: launchFields,
  });
}
