/**
 * Command runners and shell metacharacters (`policy.arguments`, issue #32): a call to a tool
 * that runs commands, with a shell metacharacter in its arguments, is asked (consent), not
 * passed silently.
 *
 * **Which tools run commands** ({@link commandRunnerEvidence}, the one predicate):
 * - configured: `switchboard.servers.<id>.commandTools`, globs over the server's own tool
 *   names. When set, it is the whole answer for that server (`[]`: none of its tools);
 * - otherwise inferred from the pinned definition: a name with a word such as `shell`, `bash`,
 *   `exec`, `execute`, `terminal`, `powershell`, `subprocess`, or `run` with `command`/`cmd`/
 *   `script` (`run_command`, `runShellScript`), or a top-level parameter named `command`,
 *   `cmd`, `script`, `shell_command` or `command_line`.
 *
 * **Metacharacters** ({@link shellMetacharacter}): `;` `|` `&` `` ` `` `>` `<`, a newline or
 * carriage return, NUL, and `$` before `(`, `{` or a name (`$(id)`, `${HOME}`, `$AWS_SECRET`),
 * in any string of the call at any depth, object keys included.
 *
 * @module
 */
import { compileGlob } from './toolFilter.js';

const RUNNER_WORDS = new Set(['shell', 'bash', 'sh', 'zsh', 'powershell', 'pwsh', 'cmd', 'exec', 'execute', 'terminal', 'subprocess']);
const RUN_WORDS = new Set(['command', 'commands', 'cmd', 'script', 'shell']);
const RUNNER_PARAMS = new Set(['command', 'cmd', 'script', 'shellcommand', 'commandline', 'commands']);

/** The words of a tool name (`run_command`, `runShellScript`, `exec-cmd`). */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

const globs = new WeakMap<readonly string[], readonly ((name: string) => boolean)[]>();

/**
 * Why the tool is a command runner (its evidence, for the person asked), or `undefined` when
 * it is not one. `configured`: the server's `commandTools` globs, when set; `serverId` names
 * the config key in the evidence.
 *
 * This is the one place the question is answered: a label catalog can replace its body.
 */
export function commandRunnerEvidence(serverId: string, toolName: string, definition: Readonly<Record<string, unknown>> | undefined, configured: readonly string[] | undefined): string | undefined {
  if (configured !== undefined) {
    let compiled = globs.get(configured);
    if (compiled === undefined) globs.set(configured, (compiled = configured.map(compileGlob)));
    const i = compiled.findIndex((match) => match(toolName));
    return i < 0 ? undefined : `config switchboard.servers.${serverId}.commandTools[${JSON.stringify(configured[i])}]`;
  }
  // Inferred from the pinned definition alone: once per definition.
  if (definition !== undefined && inferred.has(definition)) return inferred.get(definition);
  const evidence = inferRunner(toolName, definition);
  if (definition !== undefined) inferred.set(definition, evidence);
  return evidence;
}

const inferred = new WeakMap<object, string | undefined>();

function inferRunner(toolName: string, definition: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const named = words(toolName);
  const word = named.find((w) => RUNNER_WORDS.has(w)) ?? (named.includes('run') ? named.find((w) => RUN_WORDS.has(w)) : undefined);
  if (word !== undefined) return `inferred from the word '${word}' in its name`;
  const schema = definition?.['inputSchema'];
  const properties = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>)['properties'] : undefined;
  if (typeof properties === 'object' && properties !== null) {
    for (const key of Object.keys(properties)) {
      if (RUNNER_PARAMS.has(key.toLowerCase().replace(/[_-]/g, ''))) return `inferred from its parameter '${key}'`;
    }
  }
  return undefined;
}

const METACHARACTER = /[;|&`<>\n\r\0]|\$[({A-Za-z_]/;

/** The first shell metacharacter in `text`, spelled for a person (`';'`, `newline`, `'$('`), or `undefined`. */
export function shellMetacharacter(text: string): string | undefined {
  const m = METACHARACTER.exec(text);
  if (m === null) return undefined;
  const found = m[0];
  return found === '\n' ? 'newline' : found === '\r' ? 'carriage return' : found === '\0' ? 'NUL' : `'${found}'`;
}
