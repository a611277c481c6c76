/**
 * The shapes of consent: what a person is asked ({@link ConsentRequest}), what they answer
 * ({@link ConsentAnswer}), how far an approval reaches ({@link GrantScope}), and the
 * {@link ConsentProvider} interface every way of asking implements (terminal prompt, queue
 * with an HTTP API, MCP elicitation to the upstream client, signed webhook).
 *
 * Proposing and approving are separate roles: the agent (the upstream MCP client) proposes a
 * call; only a person answers, through a provider. The one exception is elicitation, which
 * asks the agent's own client and is therefore recorded as `mediated: 'client'` and is used
 * only when the config lists it.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#security-considerations
 * @module
 */
import type { ElicitParams, ElicitResult } from '../../protocol/model/elicitation.js';
import type { InterceptedMethod } from '../interceptors.js';

/**
 * What an approval is bound to. Two calls share a binding only when all of these are equal:
 * the server's stable identity (not its configured id), the item's own name on that server,
 * the digest of its definition as pinned, and the digest of the canonical arguments.
 */
export interface CallBinding {
  /** The stable server identity (`stdio:sha256:…`, `http:<origin><path>`; see `pins/serverIdentity.ts`). */
  readonly serverIdentity: string;
  /** The tool's (or prompt's, or downstream method's) name on the server itself. */
  readonly tool: string;
  /** `sha256:` over the RFC 8785 canonical definition the call was checked against; `none` for a server's own request. */
  readonly definitionDigest: string;
  /** `sha256:` over the RFC 8785 canonical arguments (`{}` when there are none). */
  readonly argumentsDigest: string;
}

/** One request waiting for a person. Everything shown is here, unabridged. */
export interface ConsentRequest {
  /** Random, unguessable; names the request in the HTTP API and the CLI. */
  readonly id: string;
  /** When it was asked (ISO 8601). */
  readonly createdAt: string;
  /** When it is denied if nobody answered (ISO 8601). */
  readonly expiresAt: string;
  readonly method: InterceptedMethod;
  /** For `server/request`: what the downstream server asked (`sampling/createMessage`, ...). */
  readonly serverMethod?: string;
  /** The configured server id (an alias) and what it calls itself. */
  readonly server: { readonly id: string; readonly identity: string; readonly name?: string; readonly version?: string };
  /** The name the agent used (possibly namespaced). */
  readonly exposedName?: string;
  /** The server's own name of the tool, prompt or downstream method. */
  readonly tool: string;
  /** The full arguments of a call or get; for `server/request`, the full params the server sent (e.g. the sampling prompt). */
  readonly arguments: unknown;
  /** Why a person is asked (the policy's reasons). */
  readonly reasons: readonly string[];
  /** Who proposed it (the upstream principal id), and in which session. */
  readonly principal?: string;
  readonly session?: string;
  readonly binding: CallBinding;
}

/**
 * How far an approval reaches. `match` says which calls: `call` this exact call (same
 * canonical arguments), `tool` any arguments, `pattern` arguments matching {@link patterns}.
 * `duration` says how long: `once` (only the pending call; nothing is kept), `session` (this
 * upstream session, until it ends or {@link expiresAt}), `until` (any session of the same
 * principal until {@link expiresAt}). Every kept approval stays bound to the server identity,
 * the tool and its definition digest: a changed definition is never covered.
 */
export interface GrantScope {
  readonly match: 'call' | 'tool' | 'pattern';
  /**
   * For `pattern`: argument name → glob on its string value (`*` any run of characters,
   * `?` one character, everything else literal, the whole value must match). Every argument
   * not named here must equal the approved call's value exactly, and no argument may be
   * added or dropped.
   */
  readonly patterns?: Readonly<Record<string, string>>;
  readonly duration: 'once' | 'session' | 'until';
  /** ISO 8601; required for `until`, optional for `session`. */
  readonly expiresAt?: string;
}

/** The default scope: this exact call, this once. */
export const ONCE: GrantScope = Object.freeze({ match: 'call', duration: 'once' });

/** Who answered: a person (terminal, HTTP API, webhook) or the agent's own client (elicitation). */
export type Mediation = 'person' | 'client';

/** A provider's answer. */
export type ConsentAnswer =
  | { readonly approved: true; readonly scope: GrantScope; readonly approver: string; readonly mediated: Mediation }
  | { readonly approved: false; readonly reason: string; readonly approver: string; readonly mediated: Mediation };

/** What a provider gets besides the request. */
export interface ConsentEnvironment {
  /** Aborted when the call is cancelled, timed out, or another provider answered first. */
  readonly signal: AbortSignal;
  /** Asks the upstream client (present only when it declared elicitation). */
  readonly elicit?: (params: ElicitParams) => Promise<ElicitResult>;
}

/** One way of asking. */
export interface ConsentProvider {
  /** `terminal`, `queue`, `elicitation`, `webhook`, ... (shown in errors and audit records). */
  readonly name: string;
  /** Whether it can take this request now (e.g. elicitation needs a client that declared it). */
  available(request: ConsentRequest, env: ConsentEnvironment): boolean;
  /**
   * Resolves with the answer. Rejects when it cannot get one (down, bad signature, late):
   * the request is then denied (fail closed).
   */
  ask(request: ConsentRequest, env: ConsentEnvironment): Promise<ConsentAnswer>;
}
