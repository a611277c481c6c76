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
 * 2. **URLs.** Every string at any depth (object keys included) that is, or contains, a
 *    `scheme://` URL (`http:/host` too), or a bare `host[:port]/…`, is parsed with the WHATWG URL parser (which
 *    normalises IPv4 in decimal, hex and octal: `http://2852039166/` is `169.254.169.254`) and
 *    refused when its host is link-local or a cloud metadata endpoint (`169.254.0.0/16`,
 *    `fe80::/10`, `fd00:ec2::254`, `100.100.100.200`, `metadata.google.internal`, `metadata`,
 *    IPv4-mapped IPv6 forms included).
 * 3. **Roots.** For a server with configured roots, every single-line string that may name a
 *    file (absolute, `~`, `file:`, a drive, a `..` segment, any of these once `%XX`-decoded, or a
 *    relative path with a separator, which a symlink inside a root may lead out of) is read with
 *    {@link pathCandidates} (the one normaliser: quotes, `file:` URIs, `%XX`, `..`, symlinks)
 *    and refused unless every reading is inside one of the roots.
 *
 * Past the walk's limits (depth, count) the call is refused, never passed unread.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
 * @module
 */
import type { HostConfig } from './configTypes.js';
import { DeniedError, type Interceptor } from './interceptors.js';
import { ARGUMENT_LIMITS, fileUriToPath, MAX_PATH_LENGTH, pathCandidates, percentDecode, protectedPathSet, relate, type PathPlatform, type ProtectedPathSet } from './protectedPaths.js';
import { compileJsonSchema } from '../protocol/jsonSchema.js';

/** The interceptor's id (in decisions and refusals). */
export const ARGUMENTS_ID = 'policy.arguments';

/** Why arguments were refused, or `undefined` when they pass. */
export type ArgumentProblem = string | undefined;

type Json = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const COMPOSITION = ['allOf', 'anyOf', 'oneOf', '$ref', '$dynamicRef', 'if', 'unevaluatedProperties', 'dependentSchemas'];

/** The arguments checked against the pinned `inputSchema` (see the module comment, 1). */
export async function schemaProblem(inputSchema: unknown, args: Json): Promise<ArgumentProblem> {
  if (!isObject(inputSchema) && typeof inputSchema !== 'boolean') return 'the tool has no inputSchema to check its arguments against';
  let result;
  try {
    const compiled = compileJsonSchema(inputSchema);
    await compiled.ready;
    result = await compiled.validate(args);
  } catch (error) {
    return `the tool's inputSchema cannot be used to check its arguments: ${error instanceof Error ? error.message : String(error)}`;
  }
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
  if (COMPOSITION.some((k) => k in schema)) return undefined;
  if (Array.isArray(value)) {
    const items = schema['items'];
    for (const [i, item] of value.entries()) {
      const problem = undeclared(isObject(items) ? items : undefined, item, `${at}[${i}]`, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const properties = isObject(schema['properties']) ? schema['properties'] : undefined;
  const extra = schema['additionalProperties'];
  const patterns = isObject(schema['patternProperties']) ? Object.keys(schema['patternProperties']) : [];
  for (const [key, child] of Object.entries(value)) {
    const declared = properties !== undefined && Object.hasOwn(properties, key);
    if (declared) {
      const problem = undeclared(properties[key], child, `${at}.${key}`, depth + 1);
      if (problem !== undefined) return problem;
      continue;
    }
    if (properties === undefined || (extra !== undefined && extra !== false) || patterns.some((p) => matches(p, key))) continue;
    return `argument ${at}.${key} is not declared by the tool's pinned inputSchema (its properties are ${Object.keys(properties).join(', ') || 'none'}; undeclared properties are refused unless the schema allows them with additionalProperties)`;
  }
  return undefined;
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key);
  } catch {
    return false;
  }
}

/** Every string of `value` at any depth, keys included, with where it is; `undefined` past the limits. */
function strings(value: unknown): { at: string; text: string }[] | undefined {
  const out: { at: string; text: string }[] = [];
  const walk = (item: unknown, at: string, depth: number): boolean => {
    if (depth > ARGUMENT_LIMITS.depth || out.length > ARGUMENT_LIMITS.strings) return false;
    if (typeof item === 'string') return out.push({ at, text: item }) > 0;
    if (Array.isArray(item)) return item.every((v, i) => walk(v, `${at}[${i}]`, depth + 1));
    if (isObject(item)) return Object.entries(item).every(([k, v]) => walk(k, `${at} (key)`, depth + 1) && walk(v, `${at}.${k}`, depth + 1));
    return true;
  };
  return walk(value, '$', 0) && out.length <= ARGUMENT_LIMITS.strings ? out : undefined;
}

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** Whether a URL host (as the WHATWG parser normalised it) is link-local or a cloud metadata endpoint. */
export function isMetadataHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (METADATA_HOSTS.has(host)) return true;
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (v4 !== null) return (v4[1] === '169' && v4[2] === '254') || host === '100.100.100.200';
  if (!host.startsWith('[')) return false;
  const v6 = host.slice(1, -1);
  if (/^fe[89ab][0-9a-f]?:/.test(v6)) return true; // fe80::/10
  if (v6 === 'fd00:ec2::254') return true;
  // IPv4-mapped or -translated (::ffff:a9fe:a9fe, ::a9fe:a9fe, 64:ff9b::a9fe:a9fe): the last 32 bits.
  const tail = /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (tail === null) return false;
  const hi = Number.parseInt(tail[1] as string, 16);
  const lo = Number.parseInt(tail[2] as string, 16);
  return hi === 0xa9fe || (hi === 0x6464 && lo === 0x64c8);
}

const URL_IN_TEXT = /\b[A-Za-z][\w+.-]*:\/\/[^\s"'<>`]+/g;
const BARE_HOST = /^\[?[\w.:-]+\]?(?::\d+)?(?:[/?#]|$)/;

/** The first URL in the arguments that reaches a link-local or metadata address (see the module comment, 2). */
export function urlProblem(args: unknown): ArgumentProblem {
  const all = strings(args);
  if (all === undefined) return `the arguments could not be read in full (deeper than ${ARGUMENT_LIMITS.depth} levels or more than ${ARGUMENT_LIMITS.strings} strings)`;
  for (const { at, text } of all) {
    const trimmed = text.trim();
    const spellings = [...(trimmed.match(URL_IN_TEXT) ?? [])];
    if (/^(?:https?|wss?|ftp):/i.test(trimmed)) spellings.push(trimmed);
    else if (!/^[A-Za-z][\w+.-]*:\/\//.test(trimmed) && BARE_HOST.test(trimmed)) spellings.push(`http://${trimmed}`);
    for (const spelling of spellings) {
      let hostname: string;
      try {
        // Any scheme's host, then read as an http host: the IPv4 forms of `gopher://2852039166/` are normalised too.
        const host = new URL(spelling).hostname;
        hostname = host === '' ? '' : new URL(`http://${host}/`).hostname;
      } catch {
        continue;
      }
      if (isMetadataHost(hostname)) return `argument ${at} is a URL to ${hostname}, a link-local or cloud metadata address (never reachable through the gateway)`;
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
export function rootsProblem(roots: ProtectedPathSet, args: unknown): ArgumentProblem {
  const all = strings(args);
  if (all === undefined) return `the arguments could not be read in full (deeper than ${ARGUMENT_LIMITS.depth} levels or more than ${ARGUMENT_LIMITS.strings} strings)`;
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

/** Options of {@link argumentsInterceptor}. */
export interface ArgumentsOptions {
  /** The config in force (a server's `checkArguments` and roots are read live). */
  readonly config: () => HostConfig;
  /** How paths behave here (case, home, symlinks). */
  readonly platform: PathPlatform;
}

/** The `policy.arguments` interceptor (see the module comment). */
export function argumentsInterceptor(options: ArgumentsOptions): Interceptor {
  const roots = new WeakMap<object, ProtectedPathSet | undefined>();
  return {
    id: ARGUMENTS_ID,
    phase: 'policy',
    methods: ['tools/call'],
    async intercept(ctx, next) {
      const server = ctx.server === undefined ? undefined : options.config().servers.find((s) => s.id === ctx.server?.id);
      if (server?.options.checkArguments === false) return next();
      const raw = ctx.params['arguments'];
      const args: Json = raw === undefined ? {} : isObject(raw) ? raw : {};
      let problem: ArgumentProblem = raw !== undefined && !isObject(raw) ? 'the arguments are not an object' : undefined;
      // No definition: the host refuses the call as an unknown tool.
      if (problem === undefined && ctx.definition !== undefined) problem = await schemaProblem(ctx.definition['inputSchema'], args);
      problem ??= urlProblem(args);
      if (problem === undefined && server?.options.roots !== undefined && server.options.roots.length > 0) {
        if (!roots.has(server.options.roots)) roots.set(server.options.roots, rootSet(server.options.roots, options.platform));
        const set = roots.get(server.options.roots);
        if (set !== undefined) problem = rootsProblem(set, args);
      }
      if (problem === undefined) return next();
      ctx.record({ interceptor: ARGUMENTS_ID, outcome: 'deny', reason: problem });
      throw new DeniedError(ARGUMENTS_ID, problem);
    },
  };
}
