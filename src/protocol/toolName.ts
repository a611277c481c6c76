/**
 * Tool-name rules (2025-11-25+): 1–128 characters from `[A-Za-z0-9_.-]`, case-sensitive, no
 * spaces or commas. These are SHOULDs: servers should follow them, clients and hosts may warn
 * or disambiguate.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/tools#tool-names
 * @module
 */

/** Maximum tool-name length. */
export const TOOL_NAME_MAX_LENGTH = 128;

const ALLOWED = /^[A-Za-z0-9_.-]+$/;

/** Lists every way `name` breaks the tool-name rules (empty when it follows them). */
export function checkToolName(name: string): string[] {
  const problems: string[] = [];
  if (name.length === 0) return ['tool name must not be empty'];
  if (name.length > TOOL_NAME_MAX_LENGTH) problems.push(`tool name is ${name.length} characters; the maximum is ${TOOL_NAME_MAX_LENGTH}`);
  if (!ALLOWED.test(name)) {
    const bad = new Set<string>();
    for (const ch of name) if (!/[A-Za-z0-9_.-]/.test(ch)) bad.add(ch);
    const shown = [...bad].map((c) => (c === ' ' ? 'space' : JSON.stringify(c))).join(', ');
    problems.push(`tool name contains characters outside [A-Za-z0-9_.-]: ${shown}`);
  }
  return problems;
}

/** True when `name` follows the tool-name rules. */
export function isValidToolName(name: string): boolean {
  return name.length > 0 && name.length <= TOOL_NAME_MAX_LENGTH && ALLOWED.test(name);
}
