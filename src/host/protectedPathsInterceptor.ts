/**
 * `policy.protected-paths`: the gateway's own files are off-limits to the servers it fronts.
 *
 * - A call, read, get, subscription or completion whose params name the config file, the state
 *   folder (pins, audit log, tokens, approvals) or another protected path, at any depth and in
 *   any spelling `protectedPaths.ts` reads, is refused with a {@link DeniedError} (and so
 *   recorded in the audit log like any refusal). A tool not annotated `readOnlyHint: true` is
 *   also refused an ancestor of one (a move or delete would take it along).
 * - The roots a server is offered (`roots/list`, answered by the host or by the upstream client)
 *   leave out any root that is a protected path or inside one. A root that contains one cannot
 *   be narrowed (roots are folders); {@link protectedPathWarnings} says so at start.
 *
 * It runs first in the `policy` phase: before the rules, consent (nobody is asked about a call
 * that is refused anyway) and the guards.
 *
 * @module
 */
import type { HostConfig, ServerConfig } from './configTypes.js';
import { isAbsolutePath, resolvePath } from './configPaths.js';
import { DeniedError, type InterceptContext, type InterceptedMethod, type Interceptor, type Next } from './interceptors.js';
import { checkPath, fileUriToPath, findProtectedPath, pathCandidates, relate, type CheckPathOptions, type ProtectedPath, type ProtectedPathSet } from './protectedPaths.js';

/** The interceptor's id (in decisions and refusals). */
export const PROTECTED_PATHS_ID = 'policy.protected-paths';

/** The gateway's own files in `config`: its config file and its state folder, then `extra` (credential files kept elsewhere, the per-user pointer). */
export function gatewayProtectedPaths(config: HostConfig, cwd: string, extra: readonly ProtectedPath[] = []): ProtectedPath[] {
  const absolute = (path: string): string => (isAbsolutePath(path) ? resolvePath('', path) : resolvePath(cwd, path));
  return [{ path: absolute(config.file), what: 'config file' }, { path: absolute(config.stateDir), what: 'state folder' }, ...extra.map((p) => ({ ...p, path: absolute(p.path) }))];
}

/**
 * The folders a server may resolve a relative path against: its working folder (`cwd`, else
 * the gateway's), its configured roots, and its launch arguments (a filesystem server's allowed
 * folders are arguments).
 */
export function serverPathBases(server: ServerConfig | undefined, cwd: string, paths?: ProtectedPathSet): string[] {
  if (server === undefined) return [cwd];
  const own = server.launch.kind === 'stdio' ? (server.launch.cwd ?? cwd) : cwd;
  const args = server.launch.kind === 'stdio' ? server.launch.args.filter((a) => !a.startsWith('-')).map((a) => resolvePath(own, a)) : [];
  // A root that is (or is inside) a protected path is never offered (see withoutProtectedRoots): no base.
  const roots = (server.options.roots ?? []).filter((r) => paths === undefined || !checkPath(paths, r.uri, { bases: [], ancestors: false }).protected).flatMap((r) => fileUriToPath(r.uri) ?? []);
  return [...new Set([own, cwd, ...roots, ...args])];
}

/** Options of {@link protectedPathsInterceptor}. */
export interface ProtectedPathsOptions {
  readonly paths: ProtectedPathSet;
  /** The config in force (a server's `cwd`, roots and arguments are read live). */
  readonly config: () => HostConfig;
  /** The gateway's working folder (children without a `cwd` inherit it). */
  readonly cwd: string;
}

const METHODS: readonly InterceptedMethod[] = ['tools/call', 'prompts/get', 'resources/read', 'resources/subscribe', 'completion/complete', 'server/request'];

/** The `policy.protected-paths` interceptor (see the module comment). */
export function protectedPathsInterceptor(options: ProtectedPathsOptions): Interceptor {
  const { paths } = options;
  // A server's bases follow from its config entry alone (a reload makes a new entry): made once per entry,
  // with the check's options for a read-only request and for one that may change files.
  const bases = new WeakMap<ServerConfig, Checks>();
  const noServer = checksOf([options.cwd]);
  const checksFor = (server: ServerConfig | undefined): Checks => {
    if (server === undefined) return noServer;
    let known = bases.get(server);
    if (known === undefined) bases.set(server, (known = checksOf(serverPathBases(server, options.cwd, paths))));
    return known;
  };
  return {
    id: PROTECTED_PATHS_ID,
    phase: 'policy',
    methods: METHODS,
    // Not `async`: a clear call returns `next()`'s own promise (an async function returning it
    // costs two more microtask turns on every call); a throw still becomes a rejection.
    intercept(ctx, next) {
      try {
        if (ctx.method !== 'server/request') return checkCall(ctx, next);
        if (ctx.serverMethod !== 'roots/list') return next();
        return next().then((result) => withoutProtectedRoots(paths, result, (reason) => ctx.record({ interceptor: PROTECTED_PATHS_ID, outcome: 'change', reason })));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };

  /** A request's arguments against the protected paths: `next()` when clear, else the denial (thrown). */
  function checkCall(ctx: InterceptContext, next: Next): Promise<unknown> {
    const server = ctx.server === undefined ? undefined : options.config().servers.find((s) => s.id === ctx.server?.id);
    const readOnly = ctx.method !== 'tools/call' || (ctx.definition?.['annotations'] as { readOnlyHint?: unknown } | undefined)?.readOnlyHint === true;
    const checks = checksFor(server);
    // A tool's or prompt's `name` is not read (the host routes by it).
    const found = findProtectedPath(paths, ctx.params, readOnly ? checks.reading : checks.writing, ctx.method === 'tools/call' || ctx.method === 'prompts/get' ? 'name' : undefined);
    if (found.kind === 'clear') return next();
    let reason: string;
    if (found.kind === 'unreadable') reason = `the arguments could not be checked for the gateway's own files: ${found.reason}`;
    else {
      const { verdict } = found;
      const how = verdict.relation === 'same' ? 'is' : verdict.relation === 'inside' ? 'is inside' : 'contains (and this tool may change files)';
      reason = `${found.at} names ${verdict.resolved}, which ${how} the gateway's ${verdict.target.what} ${verdict.target.path}; the gateway's own files are off-limits to the servers it fronts`;
    }
    ctx.record({ interceptor: PROTECTED_PATHS_ID, outcome: 'deny', reason });
    throw new DeniedError(PROTECTED_PATHS_ID, reason);
  }
}

/** The check's options for one server's bases: a read-only request, and one that may change files (ancestors refused too). */
interface Checks {
  readonly reading: CheckPathOptions;
  readonly writing: CheckPathOptions;
}

function checksOf(bases: readonly string[]): Checks {
  return { reading: { bases, ancestors: false }, writing: { bases, ancestors: true } };
}

/** A `roots/list` answer without the roots that are protected paths or inside one. */
function withoutProtectedRoots(paths: ProtectedPathSet, result: unknown, changed: (reason: string) => void): unknown {
  const roots = (result as { roots?: unknown } | undefined)?.roots;
  if (!Array.isArray(roots)) return result;
  const kept = roots.filter((root: unknown) => {
    const uri = (root as { uri?: unknown } | null)?.uri;
    if (typeof uri !== 'string') return true;
    const verdict = checkPath(paths, uri, { bases: [], ancestors: false });
    return !verdict.protected;
  });
  if (kept.length === roots.length) return result;
  changed(`${roots.length - kept.length} root(s) naming the gateway's own files left out`);
  return { ...(result as Record<string, unknown>), roots: kept };
}

/**
 * Start-up warnings: each server whose launch arguments or roots name one of the gateway's own
 * files, or a folder that holds one (requests naming them are still refused; a root cannot be
 * narrowed, so the safer fix is to keep the gateway's files out of the folders servers get).
 */
export function protectedPathWarnings(config: HostConfig, paths: ProtectedPathSet, cwd: string): string[] {
  const out: string[] = [];
  for (const server of config.servers) {
    if (server.disabled) continue;
    const own = server.launch.kind === 'stdio' ? (server.launch.cwd ?? cwd) : cwd;
    const given = [
      ...(server.launch.kind === 'stdio' ? server.launch.args.filter((a) => !a.startsWith('-')).map((a) => ({ what: `argument ${JSON.stringify(a)}`, text: a })) : []),
      ...(server.options.roots ?? []).map((r) => ({ what: `root ${r.uri}`, text: r.uri })),
    ];
    for (const { what, text } of given) {
      const hit = firstHit(paths, text, own);
      if (hit === undefined) continue;
      const tail =
        hit.relation === 'ancestor'
          ? `contains the gateway's ${hit.target.what} ${hit.target.path}: requests naming it are refused (${PROTECTED_PATHS_ID}), but keep the gateway's files out of the folders servers get (move switchboard.stateDir, or the config) for defence in depth`
          : `names the gateway's ${hit.target.what} ${hit.target.path}: requests naming it are refused (${PROTECTED_PATHS_ID}) and such a root is not offered`;
      out.push(`server ${server.id}: its ${what} ${tail}`);
    }
  }
  return out;
}

function firstHit(paths: ProtectedPathSet, text: string, base: string): { relation: string; target: ProtectedPath } | undefined {
  for (const candidate of pathCandidates(text, [base], paths.platform)) {
    for (const { target, forms } of paths.entries) {
      for (const form of forms) {
        const relation = relate(candidate, form);
        if (relation !== undefined) return { relation, target };
      }
    }
  }
  return undefined;
}
