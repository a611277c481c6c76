/**
 * Kept approvals ("grants") and the rule that decides whether one covers a call.
 *
 * A grant is made when a person approves with a scope wider than `once`. It is always bound
 * to the server's stable identity, the tool's own name and the definition digest the person
 * saw, and to the principal who proposed the call; then, by its scope, to the exact
 * canonical arguments (`call`), to any arguments (`tool`), or to arguments matching
 * per-argument globs (`pattern`), within one session (`session`) or until an expiry
 * (`until`). Arguments are kept only as digests; glob patterns are what the person typed.
 *
 * The {@link ConsentGrantStore} interface is implemented in memory here; a persistent store
 * implements the same four methods.
 *
 * @module
 */
import { digestOf } from '../pins/pinDigests.js';
import { McpError, McpErrorCode } from '../../util/errors.js';
import type { CallBinding, ConsentRequest, GrantScope, Mediation } from './consentTypes.js';

/** A kept approval. */
export interface ConsentGrant {
  readonly id: string;
  /** When it was given (ISO 8601). */
  readonly createdAt: string;
  /** Who gave it (`admin-token`, `terminal`, a webhook's named approver, ...). */
  readonly approver: string;
  readonly mediated: Mediation;
  readonly scope: GrantScope;
  readonly serverIdentity: string;
  readonly tool: string;
  readonly definitionDigest: string;
  /** For `match: 'call'`. */
  readonly argumentsDigest?: string;
  /** For `match: 'pattern'`: the digest of each argument the patterns do not name. */
  readonly fixedArguments?: Readonly<Record<string, string>>;
  /** The principal who proposed the approved call (undefined: an unauthenticated gateway). */
  readonly principal?: string;
  /** For `duration: 'session'`. */
  readonly session?: string;
  /** ISO 8601, when set. */
  readonly expiresAt?: string;
}

/** A call looking for a grant. */
export interface CallUnderConsent {
  readonly binding: CallBinding;
  readonly arguments: unknown;
  readonly principal: string | undefined;
  readonly session: string | undefined;
}

/** Where grants are kept. */
export interface ConsentGrantStore {
  add(grant: ConsentGrant): Promise<void>;
  /** Every grant not yet expired at `now` (ms). */
  list(now: number): Promise<readonly ConsentGrant[]>;
  /** Removes a grant; false when there was none. */
  revoke(id: string): Promise<boolean>;
}

/** Grants in memory (lost on restart, which only ever asks again). */
export class MemoryGrantStore implements ConsentGrantStore {
  #grants: ConsentGrant[] = [];

  /** Adds a grant. */
  add(grant: ConsentGrant): Promise<void> {
    this.#grants.push(grant);
    return Promise.resolve();
  }

  /** The grants still valid at `now`; expired ones are dropped. */
  list(now: number): Promise<readonly ConsentGrant[]> {
    this.#grants = this.#grants.filter((g) => !expired(g, now));
    return Promise.resolve([...this.#grants]);
  }

  /** Removes grant `id`. */
  revoke(id: string): Promise<boolean> {
    const before = this.#grants.length;
    this.#grants = this.#grants.filter((g) => g.id !== id);
    return Promise.resolve(this.#grants.length !== before);
  }
}

/**
 * Checks a scope an approver chose against the request it answers; throws
 * `ERR_MCP_INVALID_ARGUMENT` with the reason when it cannot be honoured (an expiry in the
 * past, a session scope on a request without a session, a pattern naming no argument of the
 * call or one whose value is not a string).
 */
export function checkScope(scope: GrantScope, request: ConsentRequest, now: number): GrantScope {
  const bad = (why: string): never => {
    throw new McpError(McpErrorCode.InvalidArgument, `Invalid approval scope: ${why}`);
  };
  if (!['call', 'tool', 'pattern'].includes(scope.match)) bad(`match must be call, tool or pattern, not ${JSON.stringify(scope.match)}`);
  if (!['once', 'session', 'until'].includes(scope.duration)) bad(`duration must be once, session or until, not ${JSON.stringify(scope.duration)}`);
  if (scope.expiresAt !== undefined) {
    const at = Date.parse(scope.expiresAt);
    if (!Number.isFinite(at)) bad(`expiresAt ${JSON.stringify(scope.expiresAt)} is not an ISO 8601 time`);
    if (at <= now) bad(`expiresAt ${scope.expiresAt} is already past`);
  }
  if (scope.duration === 'until' && scope.expiresAt === undefined) bad('duration "until" needs expiresAt');
  if (scope.duration === 'session' && request.session === undefined) bad('this request has no session (a stateless client); approve once, or until an expiry');
  if (scope.match === 'pattern') {
    const patterns = scope.patterns ?? {};
    const args = argumentRecord(request.arguments);
    if (Object.keys(patterns).length === 0) bad('match "pattern" needs at least one argument pattern');
    for (const [name, glob] of Object.entries(patterns)) {
      if (typeof glob !== 'string') bad(`the pattern of ${JSON.stringify(name)} is not a string`);
      if (!Object.hasOwn(args, name)) bad(`the call has no argument ${JSON.stringify(name)}`);
      if (typeof args[name] !== 'string') bad(`argument ${JSON.stringify(name)} is not a string (patterns match string values only)`);
      if (!globMatches(glob, args[name] as string)) bad(`the pattern of ${JSON.stringify(name)} does not match the call being approved`);
    }
  } else if (scope.patterns !== undefined) bad('patterns apply only to match "pattern"');
  return scope;
}

/** The grant a kept approval makes (undefined for `once`: nothing is kept). */
export function grantOf(id: string, request: ConsentRequest, scope: GrantScope, approver: string, mediated: Mediation, now: number): ConsentGrant | undefined {
  if (scope.duration === 'once') return undefined;
  const b = request.binding;
  let fixedArguments: Record<string, string> | undefined;
  if (scope.match === 'pattern') {
    fixedArguments = {};
    const args = argumentRecord(request.arguments);
    for (const [name, value] of Object.entries(args)) if (!Object.hasOwn(scope.patterns ?? {}, name)) fixedArguments[name] = digestOf(value);
  }
  return Object.freeze({
    id,
    createdAt: new Date(now).toISOString(),
    approver,
    mediated,
    scope,
    serverIdentity: b.serverIdentity,
    tool: b.tool,
    definitionDigest: b.definitionDigest,
    ...(scope.match === 'call' ? { argumentsDigest: b.argumentsDigest } : {}),
    ...(fixedArguments !== undefined ? { fixedArguments } : {}),
    ...(request.principal !== undefined ? { principal: request.principal } : {}),
    ...(scope.duration === 'session' && request.session !== undefined ? { session: request.session } : {}),
    ...(scope.expiresAt !== undefined ? { expiresAt: scope.expiresAt } : {}),
  });
}

/** True when `grant` covers `call` at `now` (ms). */
export function grantCovers(grant: ConsentGrant, call: CallUnderConsent, now: number): boolean {
  const b = call.binding;
  if (expired(grant, now)) return false;
  if (grant.serverIdentity !== b.serverIdentity || grant.tool !== b.tool || grant.definitionDigest !== b.definitionDigest) return false;
  if (grant.principal !== call.principal) return false;
  if (grant.scope.duration === 'session' && (grant.session === undefined || grant.session !== call.session)) return false;
  switch (grant.scope.match) {
    case 'tool':
      return true;
    case 'call':
      return grant.argumentsDigest === b.argumentsDigest;
    case 'pattern':
      return patternCovers(grant, call.arguments);
    default:
      return false;
  }
}

/** The first grant of `grants` covering `call`. */
export function findGrant(grants: readonly ConsentGrant[], call: CallUnderConsent, now: number): ConsentGrant | undefined {
  return grants.find((g) => grantCovers(g, call, now));
}

/** True when `glob` (`*` any run, `?` one character, the rest literal) matches all of `value`. */
export function globMatches(glob: string, value: string): boolean {
  const g = [...glob];
  const v = [...value];
  // Iterative wildcard matching with one backtrack point (linear in practice, no regex).
  let gi = 0;
  let vi = 0;
  let star = -1;
  let mark = 0;
  while (vi < v.length) {
    if (gi < g.length && (g[gi] === '?' || (g[gi] !== '*' && g[gi] === v[vi]))) {
      gi++;
      vi++;
    } else if (gi < g.length && g[gi] === '*') {
      star = gi++;
      mark = vi;
    } else if (star >= 0) {
      gi = star + 1;
      vi = ++mark;
    } else return false;
  }
  while (gi < g.length && g[gi] === '*') gi++;
  return gi === g.length;
}

function patternCovers(grant: ConsentGrant, args: unknown): boolean {
  const patterns = grant.scope.patterns ?? {};
  const fixed = grant.fixedArguments ?? {};
  const record = argumentRecord(args);
  const names = Object.keys(record);
  if (names.length !== Object.keys(patterns).length + Object.keys(fixed).length) return false;
  for (const name of names) {
    const value = record[name];
    if (Object.hasOwn(patterns, name)) {
      if (typeof value !== 'string' || !globMatches(patterns[name] as string, value)) return false;
    } else if (!Object.hasOwn(fixed, name) || fixed[name] !== digestOf(value)) return false;
  }
  return true;
}

function argumentRecord(args: unknown): Record<string, unknown> {
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function expired(grant: ConsentGrant, now: number): boolean {
  return grant.expiresAt !== undefined && Date.parse(grant.expiresAt) <= now;
}
