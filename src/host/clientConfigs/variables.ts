/**
 * Rewrites a client's variable references into Switchboard's `${env:NAME}` syntax. Each client
 * has its own dialect: Cursor, VS Code and Windsurf write `${env:NAME}`, Claude Code writes `${NAME}` and
 * `${NAME:-default}`, Gemini CLI `$NAME` and `${NAME}`. A reference Switchboard cannot resolve
 * is kept literally (written `$${...}`) and noted.
 *
 * @module
 */
import type { ParseContext } from './types.js';

/** Maps the inside of one `${...}` (or a bare `$NAME`) to its replacement; undefined = unknown. */
export type VariableResolver = (inner: string) => string | undefined;

const ENV_PREFIXED = /^env:([A-Za-z_][A-Za-z0-9_]*)(:-.*)?$/s;
const PLAIN = /^([A-Za-z_][A-Za-z0-9_]*)(:-.*)?$/s;

/** `${env:NAME}` and `${env:NAME:-default}` stay as they are (Cursor, VS Code, Windsurf). */
export const envPrefixed: VariableResolver = (inner) => (ENV_PREFIXED.test(inner) ? `\${${inner}}` : undefined);

/** `${NAME}` and `${NAME:-default}` become `${env:NAME}` forms (Claude Code, Gemini CLI). */
export const plainNames: VariableResolver = (inner) => (PLAIN.test(inner) ? `\${env:${inner}}` : undefined);

/** `${workspaceFolder}` and `${userHome}` resolved from the context, when it has them. */
export function folders(context: ParseContext | undefined): VariableResolver {
  return (inner) => {
    if (inner === 'workspaceFolder' && context?.projectDir !== undefined) return context.projectDir;
    if (inner === 'userHome' && context?.home !== undefined) return context.home;
    return undefined;
  };
}

/** The first resolver that knows `inner` wins. */
export function anyOf(...resolvers: readonly VariableResolver[]): VariableResolver {
  return (inner) => {
    for (const resolve of resolvers) {
      const out = resolve(inner);
      if (out !== undefined) return out;
    }
    return undefined;
  };
}

/** A resolver that knows nothing: every `${` is literal (Claude Desktop, Codex, Zed). */
export const noVariables: VariableResolver = () => undefined;

/**
 * Rewrites the references in `value`. `bare` also reads `$NAME` (Gemini CLI). Unknown
 * references are kept literally and described in `notes` (`where` names the field).
 */
export function convertVariables(value: string, resolve: VariableResolver, notes: string[], where: string, bare = false): string {
  const pattern = bare ? /\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g : /\$\{([^}]*)\}/g;
  return value.replace(pattern, (match, braced: string | undefined, name: string | undefined) => {
    const inner = braced ?? (name as string);
    const out = resolve(inner);
    if (out !== undefined) return out;
    if (braced === undefined) return match;
    notes.push(`${where}: \${${inner}} cannot be resolved by Switchboard; kept literally`);
    return `$\${${inner}}`;
  });
}
