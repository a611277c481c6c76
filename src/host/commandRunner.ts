/**
 * Command runners and shell metacharacters (`policy.arguments`, issue #32): a call to a tool
 * that runs commands, with a shell metacharacter in its arguments, is asked (consent), not
 * passed silently.
 *
 * **Which tools run commands** ({@link commandRunnerEvidence}, the one predicate):
 * - configured: `switchboard.servers.<id>.commandTools`, globs over the server's own tool
 *   names. When set, it is the whole answer for that server (`[]`: none of its tools);
 * - otherwise the label inference's verdict (`policy/inferLabels.ts`,
 *   `InferredLabels.commandRunnerEvidence`: the catalog by the server's launch or `serverInfo`
 *   name, the words of the tool's name, its parameters), the same verdict that labels the tool
 *   `egress` and `destructive`; computed once per pinned definition.
 *
 * **Metacharacters** ({@link shellMetacharacter}): `;` `|` `&` `` ` `` `>` `<`, a newline or
 * carriage return, NUL, and `$` before `(`, `{` or a name (`$(id)`, `${HOME}`, `$AWS_SECRET`),
 * in any string of the call at any depth, object keys included.
 *
 * @module
 */
import { inferLabels, type ServerEvidence } from './policy/inferLabels.js';
import { compileGlob } from './toolFilter.js';

const globs = new WeakMap<readonly string[], readonly ((name: string) => boolean)[]>();

/**
 * Why the tool is a command runner (its evidence, for the person asked), or `undefined` when
 * it is not one. `configured`: the server's `commandTools` globs, when set; `serverId` names
 * the config key in the evidence. `server`: its launch and `serverInfo` name, for the catalog
 * (without them only the name and parameter rules answer).
 */
export function commandRunnerEvidence(serverId: string, toolName: string, definition: Readonly<Record<string, unknown>> | undefined, configured: readonly string[] | undefined, server: ServerEvidence = {}): string | undefined {
  if (configured !== undefined) {
    let compiled = globs.get(configured);
    if (compiled === undefined) globs.set(configured, (compiled = configured.map(compileGlob)));
    const i = compiled.findIndex((match) => match(toolName));
    return i < 0 ? undefined : `config switchboard.servers.${serverId}.commandTools[${JSON.stringify(configured[i])}]`;
  }
  // Inferred once per pinned definition (again only when the server's launch or name changed).
  const cached = definition === undefined ? undefined : inferred.get(definition);
  if (cached !== undefined && cached.launch === server.launch && cached.info === server.serverInfoName) return cached.evidence;
  const evidence = inferLabels(server, { name: toolName, inputSchema: definition?.['inputSchema'] }, { vetted: true }).commandRunnerEvidence;
  if (definition !== undefined) inferred.set(definition, { launch: server.launch, info: server.serverInfoName, evidence });
  return evidence;
}

const inferred = new WeakMap<object, { readonly launch: ServerEvidence['launch']; readonly info: string | undefined; readonly evidence: string | undefined }>();

const METACHARACTER = /[;|&`<>\n\r\0]|\$[({A-Za-z_]/;

/** The first shell metacharacter in `text`, spelled for a person (`';'`, `newline`, `'$('`), or `undefined`. */
export function shellMetacharacter(text: string): string | undefined {
  const m = METACHARACTER.exec(text);
  if (m === null) return undefined;
  const found = m[0];
  return found === '\n' ? 'newline' : found === '\r' ? 'carriage return' : found === '\0' ? 'NUL' : `'${found}'`;
}
