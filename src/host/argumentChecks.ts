/**
 * `policy.arguments`: a tool call's arguments are checked before they leave the gateway
 * (`switchboard.servers.<id>.checkArguments`, on by default).
 *
 * 1. **Schema.** The arguments are validated against the tool's PINNED `inputSchema` (the
 *    definition the chain sees) with our validator (`protocol/jsonSchema.ts`): types, enums,
 *    `required` and every other keyword it knows. On top of JSON Schema, an object schema that
 *    declares `properties` and says nothing of `additionalProperties` is read as closed:
 *    undeclared properties are refused unless the schema allows them (`additionalProperties`
 *    other than `false`, or a matching `patternProperties`). A schema with no `properties` is
 *    open. Composition keywords (`allOf`, `anyOf`, `oneOf`, `$ref`, `if`,
 *    `unevaluatedProperties`) leave the level they sit on to JSON Schema alone. A schema our
 *    validator refuses refuses the call (fail closed).
 * 2. **URLs.** Every URL in the arguments (`argumentUrls.ts`: scheme URLs in any string at any
 *    depth, keys included, inside text too, and values of URL parameters such as `url`,
 *    `endpoint`, `host`), its host normalised once (IPv4 in decimal, hex and octal:
 *    `http://2852039166/` is `169.254.169.254`; userinfo, trailing dots, IDNA, IPv4-mapped
 *    IPv6), is refused when the host is link-local or a cloud metadata endpoint, and, for a
 *    server with `egressAllow`, when the allow-list does not name it.
 * 3. **Roots.** For a server with configured roots, every single-line string that may name a
 *    file (absolute, `~`, `file:`, a drive, a `..` segment, any of these once `%XX`-decoded, or a
 *    relative path with a separator, which a symlink inside a root may lead out of) is read with
 *    {@link pathCandidates} (the one normaliser: quotes, `file:` URIs, `%XX`, `..`, symlinks)
 *    and refused unless every reading is inside one of the roots.
 *
 * 4. **Commands.** A call to a tool that runs commands (`commandRunner.ts`: configured in
 *    `commandTools`, or the label inference's verdict) with a shell metacharacter in any string is ASKED: an `ask`
 *    decision (rule `arguments.shell`) the consent interceptor acts on, as it does the policy's.
 *
 * Past the walk's limits (depth, count) the call is refused, never passed unread.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
 * @module
 */
import type { HostConfig, ServerConfig } from './configTypes.js';
import { egressAllowed, isMetadata, urlsIn, type ArgumentString, type EgressEntry } from './argumentUrls.js';
import { commandRunnerEvidence, shellMetacharacter } from './commandRunner.js';
import { DeniedError, type InterceptContext, type Interceptor, type Next } from './interceptors.js';
import { ARGUMENT_LIMITS, fileUriToPath, MAX_PATH_LENGTH, pathCandidates, percentDecode, protectedPathSet, relate, type PathPlatform, type ProtectedPathSet } from './protectedPaths.js';
import { compileJsonSchema } from '../protocol/jsonSchema.js';
import type { ValidationResult } from '../util/schema.js';

/** The interceptor's id (in decisions and refusals). */
export const ARGUMENTS_ID = 'policy.arguments';

/** Why arguments were refused, or `undefined` when they pass. */
export type ArgumentProblem = string | undefined;

type Json = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const COMPOSITION = ['allOf', 'anyOf', 'oneOf', '$ref', '$dynamicRef', 'if', 'unevaluatedProperties', 'dependentSchemas'];

/**
 * The arguments checked against the pinned `inputSchema` (see the module comment, 1).
 * Synchronous once the schema is compiled (the common case: the validator is built once per
 * pinned schema), a promise only while it is being compiled.
 */
export function schemaProblem(inputSchema: unknown, args: Json): ArgumentProblem | Promise<ArgumentProblem> {
  if (!isObject(inputSchema) && typeof inputSchema !== 'boolean') return 'the tool has no inputSchema to check its arguments against';
  let result;
  try {
    result = compileJsonSchema(inputSchema).validate(args);
  } catch (error) {
    return unusableSchema(error);
  }
  if (result instanceof Promise) return result.then((settled) => schemaVerdict(inputSchema, args, settled), unusableSchema);
  return schemaVerdict(inputSchema, args, result);
}

function unusableSchema(error: unknown): string {
  return `the tool's inputSchema cannot be used to check its arguments: ${error instanceof Error ? error.message : String(error)}`;
}

function schemaVerdict(inputSchema: Json | boolean, args: Json, result: ValidationResult<unknown>): ArgumentProblem {
  if (!result.ok) {
    const issue = result.issues[0];
    const at = issue === undefined ? '$' : ['$', ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))].join('');
    return `argument ${at} ${issue?.message ?? 'does not match'} (the tool's pinned inputSchema)`;
  }
  return undeclared(inputSchema, args, '$', 0);
}

/** The first property the schema does not declare at a level read as closed (see the module comment). */
function undeclared(schema: unknown, value: unknown, at: string, depth: number): ArgumentProblem {
  if (!isObject(schema) || depth > ARGUMENT_LIMITS.depth) return undefined;
  const level = levelOf(schema);
  if (level === undefined) return undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = undeclared(level.items, item, `${at}[${i}]`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const { properties, open, patterns } = level;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const declared = properties !== undefined && Object.hasOwn(properties, key);
    if (declared) {
      const problem = undeclared(properties[key], value[key], `${at}.${key}`, depth + 1);
      if (problem !== undefined) return problem;
      continue;
    }
    if (properties === undefined || open || patterns.some((p) => matches(p, key))) continue;
    return `argument ${at}.${key} is not declared by the tool's pinned inputSchema (its properties are ${Object.keys(properties).join(', ') || 'none'}; undeclared properties are refused unless the schema allows them with additionalProperties)`;
  }
  return undefined;
}

/** What {@link undeclared} reads of one schema level, or `undefined` when a composition keyword leaves the level to JSON Schema. */
interface Level {
  readonly items: Json | undefined;
  readonly properties: Json | undefined;
  /** `additionalProperties` allows undeclared properties (present and not `false`). */
  readonly open: boolean;
  readonly patterns: readonly string[];
}

/** Levels read once per schema object (a pinned definition's schema is the same object call after call). */
const levels = new WeakMap<Json, Level | null>();

function levelOf(schema: Json): Level | undefined {
  let level = levels.get(schema);
  if (level === undefined) {
    const extra = schema['additionalProperties'];
    level = COMPOSITION.some((k) => k in schema)
      ? null
      : {
          items: isObject(schema['items']) ? schema['items'] : undefined,
          properties: isObject(schema['properties']) ? schema['properties'] : undefined,
          open: extra !== undefined && extra !== false,
          patterns: isObject(schema['patternProperties']) ? Object.keys(schema['patternProperties']) : [],
        };
    levels.set(schema, level);
  }
  return level ?? undefined;
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key);
  } catch {
    return false;
  }
}

/** Every string of `value` at any depth, keys included, with where it is; `undefined` past the limits. */
export function argumentStrings(value: unknown): ArgumentString[] | undefined {
  const out: ArgumentString[] = [];
  const walk = (item: unknown, at: string, key: string | undefined, depth: number): boolean => {
    if (depth > ARGUMENT_LIMITS.depth || out.length > ARGUMENT_LIMITS.strings) return false;
    if (typeof item === 'string') return out.push({ at, text: item, key }) > 0;
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) if (!walk(item[i], `${at}[${i}]`, key, depth + 1)) return false;
      return true;
    }
    if (isObject(item)) {
      for (const k in item) {
        if (!Object.hasOwn(item, k)) continue;
        if (!walk(k, `${at} (key)`, undefined, depth + 1) || !walk(item[k], `${at}.${k}`, k, depth + 1)) return false;
      }
    }
    return true;
  };
  return walk(value, '$', undefined, 0) && out.length <= ARGUMENT_LIMITS.strings ? out : undefined;
}

/** The first URL in the arguments that reaches a link-local or metadata address, or a host the server's allow-list does not name (see the module comment, 2). */
export function urlProblem(all: readonly ArgumentString[], egress?: { readonly serverId: string; readonly entries: readonly EgressEntry[] }): ArgumentProblem {
  for (const s of all) {
    for (const { at, host, guessed } of urlsIn(s)) {
      const shown = host.kind === 'name' ? host.name : host.text;
      if (isMetadata(host)) return `argument ${at} is a URL to ${shown}, a link-local or cloud metadata address (never reachable through the gateway)`;
      if (egress !== undefined && !guessed && !egressAllowed(host, egress.entries)) {
        return `argument ${at} is a URL to ${shown}, which switchboard.servers.${egress.serverId}.egressAllow does not allow (it allows ${egress.entries.map((e) => e.spelled).join(', ') || 'no host'})`;
      }
    }
  }
  return undefined;
}

/** A server's configured roots as a set to compare against (lexical and real forms), or `undefined` when it has none. */
export function rootSet(roots: readonly { readonly uri: string }[] | undefined, platform: PathPlatform): ProtectedPathSet | undefined {
  const folders = (roots ?? []).flatMap((r) => fileUriToPath(r.uri) ?? []);
  return folders.length === 0 ? undefined : protectedPathSet(folders.map((path) => ({ path, what: 'root' })), platform);
}

const LOOKS_LIKE_PATH = /^(?:[/\\~]|file:|[A-Za-z]:[\\/])|(?:^|[\\/])\.\.(?:[\\/]|$)/i;
/** A URI or URL of a scheme other than `file:` (not a path the server opens); a drive letter is not a scheme. */
const OTHER_SCHEME = /^(?![A-Za-z]:[\\/])[A-Za-z][\w+.-]*:/;

/**
 * Whether a string may name a file: it looks like a path as written or once `%XX`-decoded
 * (`..%2f..%2fetc%2fshadow`), or it is a relative path with a separator (`link/shadow`: inside a
 * root as written, but a symlink in the root may lead out, which only resolving it shows).
 */
function mayBePath(text: string): boolean {
  if (LOOKS_LIKE_PATH.test(text)) return true;
  const decoded = text.includes('%') ? percentDecode(text) : text;
  return LOOKS_LIKE_PATH.test(decoded) || (/[\\/]/.test(decoded) && !OTHER_SCHEME.test(decoded));
}

/** The first path argument outside `roots` (see the module comment, 3). */
export function rootsProblem(roots: ProtectedPathSet, all: readonly ArgumentString[]): ArgumentProblem {
  const bases = roots.entries.map((e) => e.target.path);
  for (const { at, text } of all) {
    const trimmed = text.trim().replace(/^["']|["']$/g, '');
    if (trimmed.length > MAX_PATH_LENGTH || /[\r\n]/.test(trimmed) || !mayBePath(trimmed)) continue;
    for (const candidate of pathCandidates(trimmed, bases, roots.platform)) {
      const inside = roots.entries.some(({ forms }) => forms.some((form) => {
        const relation = relate({ ...candidate, glob: false }, form);
        return relation === 'same' || relation === 'inside';
      }));
      if (!inside) return `argument ${at} names ${candidate.display}, outside the server's roots (${bases.join(', ')})`;
    }
  }
  return undefined;
}

/** Why a call to a command runner must be asked about (its first shell metacharacter), or `undefined` (see `commandRunner.ts`). */
export function shellAsk(evidence: string, toolName: string, all: readonly ArgumentString[]): string | undefined {
  for (const { at, text } of all) {
    const found = shellMetacharacter(text);
    if (found !== undefined) return `${toolName} runs commands (${evidence}) and argument ${at} holds the shell metacharacter ${found}: a person must see it before it runs`;
  }
  return undefined;
}

/** The rule an ask of {@link shellAsk} names. */
export const SHELL_RULE = 'arguments.shell';

/** Options of {@link argumentsInterceptor}. */
export interface ArgumentsOptions {
  /** The config in force (a server's `checkArguments`, `egressAllow`, `commandTools` and roots are read live). */
  readonly config: () => HostConfig;
  /** How paths behave here (case, home, symlinks). */
  readonly platform: PathPlatform;
  /** Whether a consent interceptor follows: without one, an ask (shell metacharacters) is a denial. Default false. */
  readonly canAsk?: boolean;
}

const UNREADABLE = `the arguments could not be read in full (deeper than ${ARGUMENT_LIMITS.depth} levels or more than ${ARGUMENT_LIMITS.strings} strings)`;

/** The `policy.arguments` interceptor (see the module comment). */
export function argumentsInterceptor(options: ArgumentsOptions): Interceptor {
  const roots = new WeakMap<object, ProtectedPathSet | undefined>();
  const deny = (ctx: InterceptContext, problem: string): never => {
    ctx.record({ interceptor: ARGUMENTS_ID, outcome: 'deny', reason: problem });
    throw new DeniedError(ARGUMENTS_ID, problem);
  };
  return {
    id: ARGUMENTS_ID,
    phase: 'policy',
    methods: ['tools/call'],
    // Not `async`: with the schema's validator ready the checks are synchronous and a clear call
    // returns `next()`'s own promise (an async function returning it costs two more microtask
    // turns on every call); a denial still becomes a rejection.
    intercept(ctx, next) {
      try {
        const server = ctx.server === undefined ? undefined : options.config().servers.find((s) => s.id === ctx.server?.id);
        if (server?.options.checkArguments === false) return next();
        const raw = ctx.params['arguments'];
        if (raw !== undefined && !isObject(raw)) return deny(ctx, 'the arguments are not an object');
        const args: Json = raw === undefined ? {} : raw;
        // No definition: the host refuses the call as an unknown tool.
        const checked = ctx.definition === undefined ? undefined : schemaProblem(ctx.definition['inputSchema'], args);
        if (checked instanceof Promise) return checked.then((problem) => afterSchema(ctx, next, server, args, problem));
        return afterSchema(ctx, next, server, args, checked);
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };

  /** The checks after the schema's: URLs, roots, command runners; `next()` when all pass, else the denial (thrown). */
  function afterSchema(ctx: InterceptContext, next: Next, server: ServerConfig | undefined, args: Json, schemaIssue: ArgumentProblem): Promise<unknown> {
    let problem = schemaIssue;
    if (problem !== undefined) return deny(ctx, problem);
    const all = argumentStrings(args);
    if (all === undefined) return deny(ctx, UNREADABLE);
    const egress = server?.options.egressAllow;
    problem = urlProblem(all, egress === undefined || server === undefined ? undefined : { serverId: server.id, entries: egress });
    if (problem === undefined && server?.options.roots !== undefined && server.options.roots.length > 0) {
      if (!roots.has(server.options.roots)) roots.set(server.options.roots, rootSet(server.options.roots, options.platform));
      const set = roots.get(server.options.roots);
      if (set !== undefined) problem = rootsProblem(set, all);
    }
    if (problem !== undefined) return deny(ctx, problem);
    const toolName = typeof ctx.params['name'] === 'string' ? ctx.params['name'] : '';
    const evidence = all.length === 0 ? undefined : commandRunnerEvidence(ctx.server?.id ?? '', toolName, ctx.definition, server?.options.commandTools, { launch: server?.launch, serverInfoName: ctx.server?.info?.name });
    const ask = evidence === undefined ? undefined : shellAsk(evidence, ctx.exposedName ?? toolName, all);
    if (ask !== undefined) {
      if (options.canAsk !== true) return deny(ctx, `${ask} (this needs a person's consent and no consent provider is configured)`);
      ctx.record({ interceptor: ARGUMENTS_ID, outcome: 'ask', reason: ask, detail: { rule: SHELL_RULE, reasons: [ask] } });
    }
    return next();
  }
}
