/**
 * `${env:NAME}` expansion in config strings.
 *
 * - `${env:NAME}` is the variable's value; a variable that is not set is an error.
 * - `${env:NAME:-default}` is the value, or `default` when the variable is unset or empty
 *   (as in a POSIX shell). The default may not contain `}`.
 * - `$${` is a literal `${`.
 * - Any other `${…}` is an error, so a typo never passes through silently.
 *
 * @module
 */
import { ConfigError } from './configTypes.js';

/** Where an expansion happens, for error messages. */
export interface ExpandContext {
  readonly file: string;
  readonly path: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const REFERENCE = /^env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?$/;

/** `text` with every `${env:…}` reference replaced; throws {@link ConfigError} naming the path and variable. */
export function expandEnv(text: string, context: ExpandContext): string {
  if (!text.includes('${')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf('${', i);
    if (start < 0) break;
    if (start > 0 && text[start - 1] === '$') {
      // "$${" → "${": the first "$" escapes the reference.
      out += `${text.slice(i, start - 1)}\${`;
      i = start + 2;
      continue;
    }
    out += text.slice(i, start);
    const end = text.indexOf('}', start + 2);
    if (end < 0) throw new ConfigError(context.file, context.path, `unclosed "\${" (write "$\${" for a literal "\${")`);
    const body = text.slice(start + 2, end);
    const match = REFERENCE.exec(body);
    if (match === null) {
      throw new ConfigError(context.file, context.path, `unsupported substitution "\${${body}}": expected \${env:NAME} or \${env:NAME:-default} (write "$\${" for a literal "\${")`);
    }
    const name = match[1] as string;
    const fallback = match[2];
    const value = context.env[name];
    if (fallback !== undefined) out += value === undefined || value === '' ? fallback : value;
    else if (value === undefined) throw new ConfigError(context.file, context.path, `environment variable ${name} is not set (give a default with \${env:${name}:-default})`);
    else out += value;
    i = end + 1;
  }
  return out + text.slice(i);
}
