/**
 * VS Code's `mcp.json` (user profile folder, or `.vscode/mcp.json` in a workspace; JSONC):
 * `servers` (each with `type` `stdio`, `http` or `sse`) and `inputs`, the prompts VS Code shows
 * for secrets. Switchboard has no prompt: each `${input:ID}` becomes `${env:ID_IN_CAPITALS}`
 * and a note says which input that was and which variable to set. `${env:NAME}` stays;
 * `${workspaceFolder}` is the project folder when known.
 *
 * @module
 */
import { readEntry, readEntries, type EntryDialect } from './entries.js';
import { jsonFormat } from './jsonEdit.js';
import { isRecord, launchFields, type ClientFormat } from './types.js';
import { anyOf, envPrefixed, folders } from './variables.js';

/** The environment variable an input id maps to: `api-key` → `API_KEY`. */
export function inputVariable(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

/** `id` → description, from the `inputs` array. */
function inputDescriptions(root: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const inputs = isRecord(root) ? root['inputs'] : undefined;
  if (!Array.isArray(inputs)) return out;
  for (const input of inputs) {
    if (isRecord(input) && typeof input['id'] === 'string') out.set(input['id'], typeof input['description'] === 'string' ? input['description'] : '');
  }
  return out;
}

/** The VS Code format. */
export function vscodeFormat(): ClientFormat {
  return jsonFormat({
    sectionPath: ['servers'],
    read(section, root, context) {
      const inputs = inputDescriptions(root);
      return readEntries(section, { urlKeys: { url: 'infer' }, resolve: envPrefixed }, (id, raw) => {
        const used = new Set<string>();
        const input = (inner: string): string | undefined => {
          const match = /^input:(.+)$/s.exec(inner);
          if (match === null) return undefined;
          used.add(match[1] as string);
          return `\${env:${inputVariable(match[1] as string)}}`;
        };
        const dialect: EntryDialect = { urlKeys: { url: 'infer' }, resolve: anyOf(envPrefixed, folders(context), input), silentKeys: ['envFile'] };
        const server = readEntry(id, raw, dialect);
        const notes = [...server.notes];
        for (const inputId of used) {
          const description = inputs.get(inputId);
          notes.push(`VS Code input ${JSON.stringify(inputId)}${description ? ` (${description})` : ''} is now \${env:${inputVariable(inputId)}}: set ${inputVariable(inputId)} in the gateway's environment`);
        }
        if (isRecord(raw) && typeof raw['envFile'] === 'string') notes.push(`envFile ${JSON.stringify(raw['envFile'])} is not read by Switchboard: copy the variables it sets into env or the gateway's environment`);
        return { ...server, notes };
      });
    },
    gatewayEntry: (launch) => ({ type: 'stdio', ...launchFields(launch) }),
  });
}
