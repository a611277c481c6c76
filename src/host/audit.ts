/**
 * The audit trail: what the host records of every request through its interceptor chain, and
 * the interfaces an audit store implements (`switchboard/store` has the SQLite one).
 *
 * - {@link auditInterceptor} runs in the `audit` phase, first in and last out, so it sees every
 *   outcome: allowed, denied by a later interceptor, failed downstream, or a tool error. It
 *   waits until its record is durable before the answer goes on (an answer the caller got always
 *   has its record), and fails closed: while the log cannot write, requests are refused.
 * - Arguments are never stored: the log keeps their SHA-256 over RFC 8785 canonical JSON
 *   (`argumentsDigest`), so the same call always has the same digest and no secret reaches disk.
 * - The store chains records by hash (each holds its predecessor's hash), so an edited,
 *   deleted, inserted or reordered record is found by {@link AuditReader.verify}.
 *
 * @module
 */
import { credentialOf, type CredentialUse } from './credentialUse.js';
import { McpError, McpErrorCode, describeError } from '../util/errors.js';
import { isoTime } from '../util/time.js';
import { DeniedError, type Decision, type InterceptContext, type InterceptedMethod, type Interceptor } from './interceptors.js';

/**
 * How durable a record is when its append resolves, and so when the answer goes out:
 * `sync` (default) after the disk sync that makes it survive a power loss; `batch` once it is
 * written to the operating system (it survives the gateway being killed; the sync follows
 * within one sync time, and a power loss in that window can lose records of answers sent).
 */
export type AuditDurability = 'sync' | 'batch';

/** How a request ended. */
export type AuditOutcome = 'ok' | 'tool-error' | 'denied' | 'error';

/** What the host hands the log about one event. */
export interface AuditEntry {
  /** When the request arrived (ISO 8601, UTC). */
  readonly time: string;
  /** `request` for chain traffic; other kinds (`approval`, `pin`, ...) come from the people's side. */
  readonly kind: string;
  /** The method (`tools/call`, ..., or `server/request` with {@link serverMethod}). */
  readonly method: string;
  /** For `server/request`: what the downstream server asked (`roots/list`, `elicitation/create`, ...). */
  readonly serverMethod?: string;
  readonly principal?: string;
  readonly session?: string;
  /** The server id the request went to. */
  readonly server?: string;
  /** The exposed tool or prompt name, or resource URI. */
  readonly name?: string;
  /** The arguments: digested by the log and dropped, never stored. */
  readonly arguments?: unknown;
  /** Every decision interceptors recorded, in order (their ids are the rule ids). */
  readonly decisions: readonly Decision[];
  readonly outcome: AuditOutcome;
  /** For `denied` and `error`: the error code and message. */
  readonly error?: string;
  /** From arrival to outcome, in ms. */
  readonly latencyMs: number;
  /** Whose credential the downstream request carried (remote servers; absent in records written before it existed). */
  readonly credential?: CredentialUse;
}

/** A stored record: the entry without its arguments, numbered and chained. */
export interface AuditRecord extends Omit<AuditEntry, 'arguments'> {
  /** 1, 2, 3, ... without gaps. */
  readonly seq: number;
  /** `sha256:<hex>` of the canonical arguments, when there were any. */
  readonly argumentsDigest?: string;
  /** The previous record's {@link hash} (`sha256:` of 64 zeros for the first). */
  readonly prev: string;
  /** `sha256:<hex>` of this record's canonical text (which includes `prev`). */
  readonly hash: string;
}

/** Where records go. Implementations group concurrent appends into one durable write. */
export interface AuditLog {
  /**
   * Resolves with the stored record (numbered, chained) once it is durable; rejects (and the
   * caller fails closed) when it cannot be. `announced`: this is the append an earlier
   * {@link announce} promised (it settles that announcement).
   */
  append(entry: AuditEntry, announced?: boolean): Promise<AuditRecord>;
  /** Why the log cannot write right now (e.g. "disk full"), or undefined while it can. */
  readonly problem: string | undefined;
  /**
   * Optional grouping hint: a request has started that will call `append(entry, true)` when it
   * ends, or {@link withdraw} when it ends without a record. A log that groups appends can then
   * write a group as soon as the last announced append has arrived (no request in flight is
   * left to join it) instead of waiting for the group to grow; at c=1 that is at once. Nothing
   * else depends on it: a log without it groups as it always does.
   */
  announce?(): void;
  /** Settles an {@link announce} whose append will not come. */
  withdraw?(): void;
}

/**
 * The members of `inner`'s grouping hint ({@link AuditLog.announce}, {@link AuditLog.withdraw}),
 * forwarded, for a log that wraps `inner` (none when `inner` has none).
 */
export function forwardAnnouncements(inner: AuditLog): Pick<AuditLog, 'announce' | 'withdraw'> {
  if (inner.announce === undefined) return {};
  return { announce: () => inner.announce?.(), withdraw: () => inner.withdraw?.() };
}

/** What {@link AuditReader.verify} found. */
export interface AuditVerification {
  readonly ok: boolean;
  /** Records read. */
  readonly records: number;
  /** The last record's hash (to compare with a copy kept elsewhere: a rewritten chain has another head). */
  readonly head: string;
  /** Each problem with the seq where it shows. */
  readonly problems: readonly { readonly seq: number; readonly problem: string }[];
}

/** Reading and checking the records (an embedded store answers at once, a shared one asynchronously). */
export interface AuditReader {
  /** Records with `seq >= from` (default 1), oldest first, at most `limit`. */
  read(options?: { readonly from?: number; readonly limit?: number }): AuditRecord[] | Promise<AuditRecord[]>;
  /** The newest `count` records, oldest first. */
  tail(count: number): AuditRecord[] | Promise<AuditRecord[]>;
  /** Re-computes every hash and link. */
  verify(): AuditVerification | Promise<AuditVerification>;
}

/** What a record is about, for one-line summaries: `[kind] method [server] [name][ by principal]`. */
export function auditSubject(r: AuditRecord): string {
  const what = [r.kind !== 'request' ? r.kind : undefined, r.method === 'server/request' ? `server/request ${r.serverMethod ?? ''}` : r.method, r.server, r.name].filter((x) => x !== undefined).join(' ');
  return r.principal !== undefined ? `${what} by ${r.principal}` : what;
}

/** Options of {@link auditInterceptor}. */
export interface AuditInterceptorOptions {
  /** Which methods are recorded. Default: all. */
  readonly methods?: readonly InterceptedMethod[];
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** The id the audit interceptor records under. */
export const AUDIT_INTERCEPTOR_ID = 'audit.log';

/**
 * The `audit`-phase interceptor writing each request to `log`, waiting for it to be durable.
 * While `log.problem` is set, every request is refused (the audit trail must not have holes).
 */
export function auditInterceptor(log: AuditLog, options: AuditInterceptorOptions = {}): Interceptor {
  const now = options.now ?? Date.now;
  return {
    id: AUDIT_INTERCEPTOR_ID,
    phase: 'audit',
    ...(options.methods !== undefined ? { methods: options.methods } : {}),
    async intercept(ctx, next) {
      const problem = log.problem;
      if (problem !== undefined) throw new DeniedError(AUDIT_INTERCEPTOR_ID, `the audit log cannot be written (${problem}); requests are refused until it can`);
      // The append below always comes (every path reaches it), so it settles the announcement.
      log.announce?.();
      const start = now();
      let outcome: AuditOutcome = 'ok';
      let error: string | undefined;
      let result: unknown;
      let failure: unknown;
      let failed = false;
      try {
        result = await next();
        if (ctx.method === 'tools/call' && (result as { isError?: unknown } | null)?.isError === true) outcome = 'tool-error';
      } catch (caught) {
        failed = true;
        failure = caught;
        outcome = caught instanceof DeniedError ? 'denied' : 'error';
        error = errorText(caught);
      }
      let entry: AuditEntry | undefined;
      try {
        entry = entryOf(ctx, start, now() - start, outcome, error);
        await log.append(entry, true);
      } catch (writeError) {
        if (entry === undefined) log.withdraw?.();
        // The request ran, but its record is not durable: the answer is withheld.
        throw new McpError(McpErrorCode.StoreWriteFailed, `The audit record could not be written (${describeError(writeError)}); the answer is withheld`, { cause: writeError });
      }
      if (failed) throw failure;
      return result;
    },
  };
}

function entryOf(ctx: InterceptContext, start: number, latencyMs: number, outcome: AuditOutcome, error: string | undefined): AuditEntry {
  const args = ctx.method === 'tools/call' || ctx.method === 'prompts/get' ? ctx.params['arguments'] : ctx.method === 'completion/complete' ? ctx.params['argument'] : undefined;
  // Built member by member (no spread of a temporary object per optional member): this runs once per request.
  const entry: { -readonly [K in keyof AuditEntry]: AuditEntry[K] } = { time: isoTime(start), kind: 'request', method: ctx.method, decisions: ctx.decisions, outcome, latencyMs: Math.round(latencyMs * 1000) / 1000 };
  if (ctx.serverMethod !== undefined) entry.serverMethod = ctx.serverMethod;
  if (ctx.principal !== undefined) entry.principal = ctx.principal.id;
  if (ctx.session !== undefined) entry.session = ctx.session;
  if (ctx.server !== undefined) entry.server = ctx.server.id;
  if (ctx.exposedName !== undefined) entry.name = ctx.exposedName;
  if (args !== undefined) entry.arguments = args;
  if (error !== undefined) entry.error = error;
  const credential = credentialOf(ctx);
  if (credential !== undefined) entry.credential = credential;
  return entry;
}

function errorText(error: unknown): string {
  if (error instanceof McpError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
