/**
 * The policy interceptor (`policy` phase, id `policy`): decides every list, call, get, read,
 * completion and `server/request` with the config's CEL rules, the built-in trifecta rule and
 * value taint, and keeps each session's taint.
 *
 * **Combination.** Every rule is evaluated in order; the built-ins (`builtin.trifecta`,
 * `builtin.value-taint`, `builtin.server-request`) join them as further candidates. The
 * strongest outcome wins, deny over ask over redact over allow, and the first rule with that
 * outcome names the decision (`detail.rule`); the reasons of every candidate with that outcome are kept, in that
 * order, so a person asked sees why each rule and built-in fired. An `allow` rule never overrides a built-in: turn
 * one off in the config instead. With no match the decision is `allow` by rule `default`.
 *
 * **Enforcement.** `deny` throws {@link DeniedError}; `ask` records an `ask` decision for the
 * consent interceptor (or, with `canAsk: false`, is a denial saying so); `redact` lets the
 * call through and passes its result through the injected `redact`; in dry run every decision
 * is recorded as `observe` with `detail.wouldBe` and nothing is enforced. On lists, items a
 * rule denies are hidden (on lists only `deny` applies; ask and redact apply when called).
 *
 * **Taint.** After a call, get or read returns, the target's labels enter the session (see
 * `taint.ts` for what a session is), a result the sanitize interceptor flagged
 * (`detail.injection === true`) brings `untrusted-content` (a flagged error too: the call
 * failed, but its message reached the model; a server's sampling or elicitation request the
 * request sanitiser flagged too, forwarded or refused), and the secrets `detectSecrets` finds in
 * the result are fingerprinted for value taint.
 *
 * **A shared taint store** (several instances) answers with promises. Taint that cannot be
 * read refuses the call (`deny`, naming the store); taint that cannot be recorded after the
 * call withholds its result (the call ran, but what entered the session would be forgotten).
 *
 * @module
 */
import { DeniedError, type Decision, type InterceptContext, type InterceptedMethod, type Interceptor } from '../interceptors.js';
import { LabelResolver, type FindingsOf, type LabelInference, type ResolvedLabels, type ServerLabelConfig } from './labels.js';
import { compileRules, evaluateRules, RULE_OUTCOMES, type CompiledRule, type PolicyRule, type RuleOutcome, type RuleVariables } from './rules.js';
import { DEFAULT_TAINT_WINDOWS, joinTaint, MemoryTaintStore, taintKeys, type SecretOrigin, type TaintKeys, type TaintState, type TaintStore, type TaintWindows } from './taint.js';
import { TRIFECTA_RULE, trifectaReasons } from './trifecta.js';
import { UNVETTED_EVIDENCE } from './inferLabels.js';
import { findTaintedValue, SecretFingerprints, secretsIn, SplitTracker, type DetectSecrets, type TaintMatch } from './valueTaint.js';
import { describeError } from '../../util/errors.js';
import type { Implementation } from '../../protocol/model/common.js';
import type { Principal } from '../../transport/principal.js';

/** The id the policy interceptor records and refuses under. */
export const POLICY_INTERCEPTOR_ID = 'policy';
/** The built-in value-taint rule. */
export const VALUE_TAINT_RULE = 'builtin.value-taint';
/** The rule a refusal names when a shared taint store cannot be read or written. */
export const TAINT_STORE_RULE = 'builtin.taint-store';
/** The built-in rule for a downstream server's sampling and elicitation requests in a tainted session. */
export const SERVER_REQUEST_RULE = 'builtin.server-request';

/** What a built-in does when it fires: ask, deny, or nothing. */
export type BuiltinMode = 'ask' | 'deny' | 'off';

/** Options of {@link policyInterceptor}. */
export interface PolicyOptions {
  /** `principal.tenant` of a caller (e.g. from `gateway.auth.oauth.tenantClaim`); default `""`. */
  readonly tenantOf?: (principal: Principal) => string | undefined;
  /** `connected`: whether `principal` (an id, of `tenant`) has its own connection to `serverId`, made under that tenant; default true. Asked only when a rule reads it. */
  readonly connected?: (principal: string | undefined, serverId: string, tenant?: string) => Promise<boolean>;
  /** `server.auth` and `server.tenant` of a server id; default `shared` and `""`. */
  readonly serverAuthority?: (serverId: string) => { readonly auth: string; readonly tenant: string };
  /** The rules (compiled here, once; a bad one throws `RuleCompileError`), or already compiled ones. */
  readonly rules?: readonly PolicyRule[] | { readonly compiled: readonly CompiledRule[] };
  /** Per server id: configured labels. */
  readonly labels?: Readonly<Record<string, ServerLabelConfig>>;
  /** The built-in trifecta rule. Default `ask`. */
  readonly trifecta?: BuiltinMode;
  /** The built-in value-taint rule. Default `ask`. */
  readonly valueTaint?: BuiltinMode;
  /** Sampling and elicitation requests from a server while untrusted content is in the session. Default `ask`. */
  readonly serverRequests?: BuiltinMode;
  /** Record decisions as they would be, never enforce them. */
  readonly dryRun?: boolean;
  /** Whether a consent interceptor is installed: without one, `ask` is a denial. */
  readonly canAsk: boolean;
  /** Finds secret values in text (value taint is off without it). */
  readonly detectSecrets?: DetectSecrets;
  /** Redacts a result (the `redact` outcome fails closed, as a denial, without it). */
  readonly redact?: (result: unknown) => unknown;
  /** The scanner's findings of a definition (for scanner-derived labels). */
  readonly findingsOf?: FindingsOf;
  /** Label inference (`inferLabels.ts`): on when given (the gateway gives it), off without. */
  readonly inference?: LabelInference;
  /** Where taint is kept. Default a {@link MemoryTaintStore}. */
  readonly store?: TaintStore;
  /** How long taint lives per key. */
  readonly windows?: Partial<TaintWindows>;
  /** The keyed fingerprints of secrets (shared with the store's entries across a reload). Default: a fresh key. */
  readonly fingerprints?: SecretFingerprints;
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
}

const LISTS: ReadonlySet<InterceptedMethod> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
// A polled task's result is its tool's output: it taints as the call's result would.
const USES: ReadonlySet<InterceptedMethod> = new Set(['tools/call', 'prompts/get', 'resources/read', 'tasks/get']);
const ASKING_SERVER_METHODS: ReadonlySet<string> = new Set(['sampling/createMessage', 'elicitation/create']);
const NO_ARGS: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_LABELS: ResolvedLabels = Object.freeze({ labels: Object.freeze([]), origins: Object.freeze({}) });
const EMPTY_SESSION_LABELS: readonly string[] = Object.freeze([]);
const SHARED = Object.freeze({ auth: 'shared', tenant: '' });
/** `principal` of the rule variables for an unauthenticated caller. */
const ANONYMOUS: RuleVariables['principal'] = Object.freeze({ id: '', subject: '', scopes: EMPTY_SESSION_LABELS, claims: NO_ARGS, tenant: '' });

interface Candidate {
  readonly outcome: RuleOutcome;
  readonly rule: string;
  readonly reasons: readonly string[];
}

/** The policy engine as an interceptor (see the module comment). */
export function policyInterceptor(options: PolicyOptions): Interceptor {
  const rules = options.rules === undefined ? [] : 'compiled' in options.rules ? options.rules.compiled : compileRules(options.rules);
  const denyRules = rules.filter((r) => r.outcome === 'deny');
  const resolver = new LabelResolver(options.labels ?? {}, options.findingsOf, options.inference);
  const store = options.store ?? new MemoryTaintStore();
  const windows: TaintWindows = { ...DEFAULT_TAINT_WINDOWS, ...options.windows };
  const now = options.now ?? Date.now;
  const fingerprints = options.fingerprints ?? new SecretFingerprints();
  const splits = new SplitTracker();
  const trifecta = options.trifecta ?? 'ask';
  const valueTaint = options.detectSecrets === undefined ? 'off' : (options.valueTaint ?? 'ask');
  const serverRequests = options.serverRequests ?? 'ask';
  const dryRun = options.dryRun === true;

  // Keys are built once per principal/session/conversation (bounded caches: cleared when full).
  // A request with neither a session nor a conversation (most stateless ones) is keyed by its
  // principal alone, without building a cache key.
  const keyCache = new Map<string, TaintKeys>();
  const principalKeys = new Map<string | undefined, TaintKeys>();
  const keysOf = (ctx: InterceptContext): TaintKeys => {
    const principal = ctx.principal?.id;
    if (ctx.session === undefined && ctx.conversation === undefined) {
      let keys = principalKeys.get(principal);
      if (keys === undefined) {
        if (principalKeys.size >= 10_000) principalKeys.clear();
        principalKeys.set(principal, (keys = taintKeys(principal, undefined, undefined)));
      }
      return keys;
    }
    const cacheKey = `${principal ?? ''}\u0000${ctx.session ?? ''}\u0000${ctx.conversation ?? ''}`;
    let keys = keyCache.get(cacheKey);
    if (keys === undefined) {
      if (keyCache.size >= 10_000) keyCache.clear();
      keyCache.set(cacheKey, (keys = taintKeys(principal, ctx.session, ctx.conversation)));
    }
    return keys;
  };

  // The parts of the rule variables that follow from the server or the tool alone are made once
  // per server identity and per definition (rules only read them), and the anonymous caller's once.
  const serverVars = new Map<string, { readonly info: Implementation | undefined; readonly vars: RuleVariables['server'] }>();
  const toolVars = new WeakMap<object, RuleVariables['tool']>();
  const serverVariables = (serverId: string, info: Implementation | undefined): RuleVariables['server'] => {
    const known = serverVars.get(serverId);
    if (known !== undefined && known.info === info) return known.vars;
    const authority = options.serverAuthority?.(serverId) ?? SHARED;
    const vars = Object.freeze({ id: serverId, identity: info === undefined ? '' : `${info.name}@${info.version}`, labels: resolver.serverLabels(serverId), auth: authority.auth, tenant: authority.tenant });
    if (serverVars.size >= 10_000) serverVars.clear();
    serverVars.set(serverId, { info, vars });
    return vars;
  };
  const toolVariables = (name: string, definition: Readonly<Record<string, unknown>> | undefined, labels: ResolvedLabels): RuleVariables['tool'] => {
    const known = definition === undefined ? undefined : toolVars.get(definition);
    if (known !== undefined && known.name === name && known.labels === labels.labels && known.annotations === (definition?.['annotations'] ?? NO_ARGS)) return known;
    const vars = Object.freeze({ name, annotations: (definition?.['annotations'] as Record<string, unknown> | undefined) ?? NO_ARGS, labels: labels.labels });
    if (definition !== undefined) toolVars.set(definition, vars);
    return vars;
  };

  const readsConnected = options.connected !== undefined && rules.some((r) => /\bconnected\b/.test(r.when));
  const connectedTo = (ctx: InterceptContext, serverId: string): Promise<boolean> | boolean => (readsConnected && options.connected !== undefined ? options.connected(ctx.principal?.id, serverId, ctx.principal === undefined ? undefined : options.tenantOf?.(ctx.principal)) : true);
  const variables = (
    ctx: InterceptContext,
    keys: TaintKeys,
    state: TaintState | undefined,
    serverId: string,
    name: string,
    definition: Readonly<Record<string, unknown>> | undefined,
    labels: ResolvedLabels,
    args: Readonly<Record<string, unknown>>,
    connected = true,
  ): RuleVariables => {
    const principal = ctx.principal;
    const auth = principal?.auth;
    return {
      principal: principal === undefined ? ANONYMOUS : { id: principal.id, subject: auth?.subject ?? principal.id, scopes: auth?.scopes ?? EMPTY_SESSION_LABELS, claims: auth?.claims ?? NO_ARGS, tenant: options.tenantOf?.(principal) ?? '' },
      server: serverVariables(serverId, ctx.server?.info),
      tool: toolVariables(name, definition, labels),
      method: ctx.method,
      serverMethod: ctx.serverMethod ?? '',
      args,
      session: state === undefined ? { id: keys.session ?? keys.principal, labels: EMPTY_SESSION_LABELS, sources: [] } : sessionVariables(keys.session ?? keys.principal, state),
      connected,
    };
  };

  // The default allow (most calls) passes straight on, with no async frame of its own.
  const enforce = (ctx: InterceptContext, decided: Candidate, next: () => Promise<unknown>): Promise<unknown> => {
    if (decided === DEFAULT_DECISION && !dryRun) {
      ctx.record(DEFAULT_ALLOW);
      return next();
    }
    return enforceDecided(ctx, decided, next);
  };

  const enforceDecided = async (ctx: InterceptContext, decided: Candidate, next: () => Promise<unknown>): Promise<unknown> => {
    const reason = decided.reasons.join('; ');
    const detail = { rule: decided.rule, reasons: decided.reasons };
    if (dryRun) {
      ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'observe', reason: `dry run: would ${decided.outcome}${reason === '' ? '' : `: ${reason}`}`, detail: { ...detail, dryRun: true, wouldBe: decided.outcome } });
      return next();
    }
    switch (decided.outcome) {
      case 'deny':
        ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'deny', reason, detail });
        throw new DeniedError(POLICY_INTERCEPTOR_ID, reason);
      case 'ask':
        if (!options.canAsk) {
          const text = `${reason} (this needs a person's consent and no consent provider is configured)`;
          ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'deny', reason: text, detail: { ...detail, asked: true } });
          throw new DeniedError(POLICY_INTERCEPTOR_ID, text);
        }
        ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'ask', reason, detail });
        return next();
      case 'redact': {
        if (options.redact === undefined) {
          const text = `${reason} (the result must be redacted and no redactor is configured)`;
          ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'deny', reason: text, detail });
          throw new DeniedError(POLICY_INTERCEPTOR_ID, text);
        }
        const result = await next();
        ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'change', reason: `result redacted: ${reason}`, detail });
        return options.redact(result);
      }
      default:
        ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'allow', ...(reason === '' ? {} : { reason }), detail });
        return next();
    }
  };

  // The joined taint of the request; a shared store's failure refuses it (fail closed).
  const readTaint = (ctx: InterceptContext, keys: TaintKeys): TaintState | undefined | Promise<TaintState | undefined> => {
    const state = joinTaint(store, keys, now());
    if (!(state instanceof Promise)) return state;
    return state.catch((error: unknown) => {
      throw refuse(ctx, `the taint of this session cannot be read (${describeError(error)}); calls are refused until it can`);
    });
  };
  const refuse = (ctx: InterceptContext, reason: string): DeniedError => {
    ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'deny', reason, detail: { rule: TAINT_STORE_RULE, reasons: [reason] } });
    return new DeniedError(POLICY_INTERCEPTOR_ID, reason);
  };

  const taint = (ctx: InterceptContext, keys: TaintKeys, serverId: string, name: string | undefined, labels: ResolvedLabels, result: unknown): Promise<void> | undefined => {
    const injected = ctx.decisions.some((d) => d.detail?.['injection'] === true);
    if (labels.labels.length === 0 && !injected && valueTaint === 'off') return undefined;
    const at = now();
    let writes: (void | Promise<void>)[] | undefined;
    const pending = (write: void | Promise<void>): void => {
      if (write instanceof Promise) (writes ??= []).push(write);
    };
    const add = (label: (typeof labels.labels)[number], via: string): void => {
      const source = { label, server: serverId, tool: name, at, via };
      if (keys.session !== undefined) pending(store.addSource(keys.session, source, windows.sessionMs, at));
      pending(store.addSource(keys.principal, source, windows.principalMs, at));
    };
    for (const label of labels.labels) add(label, labels.origins[label] ?? 'labels');
    if (injected) add('untrusted-content', `injection markers in the result (${injectionBy(ctx.decisions)})`);
    const addSecrets = (found: ReadonlySet<string> | undefined): void => {
      for (const secret of found ?? []) {
        const fingerprint = fingerprints.of(secret);
        const origin = { server: serverId, tool: name, at };
        if (keys.session !== undefined) pending(store.addSecret(keys.session, fingerprint, origin, windows.sessionMs, at));
        pending(store.addSecret(keys.principal, fingerprint, origin, windows.principalMs, at));
      }
    };
    if (valueTaint !== 'off' && options.detectSecrets !== undefined && result !== undefined) {
      const found = secretsIn(result, options.detectSecrets);
      // A gzip'd blob is inflated first: its secrets are recorded once it is.
      if (found instanceof Promise) (writes ??= []).push(found.then(addSecrets));
      else addSecrets(found);
    }
    if (writes === undefined) return undefined;
    return Promise.all(writes).then(
      () => undefined,
      (error: unknown) => {
        throw refuse(ctx, `the call ran, but what it brought into the session cannot be recorded (${describeError(error)}); its answer is withheld`);
      },
    );
  };

  // Why `value` (a request's params, or a client's answer to a server) carries a secret from another server, or undefined.
  // Synchronous unless something compressed had to be inflated (no promise of its own on the common path).
  const taintedReason = (value: unknown, state: TaintState, keys: TaintKeys, serverId: string, what: string): string | undefined | Promise<string | undefined> => {
    const found = findTaintedValue(value, state.secrets, fingerprints, { split: { tracker: splits, session: keys.session ?? keys.principal } });
    return found instanceof Promise ? found.then((match) => describeMatch(match, serverId, what)) : describeMatch(found, serverId, what);
  };
  const describeMatch = (match: TaintMatch<SecretOrigin> | undefined, serverId: string, what: string): string | undefined => {
    if (match === undefined) return undefined;
    if ('unreadable' in match) return `${what} could not be read in full for secrets that came out of other servers (${match.unreadable})`;
    const origin = match.origin;
    if (origin.server === serverId) return undefined;
    return `a secret that came out of ${origin.tool === undefined ? `server ${origin.server}` : `${origin.server}/${origin.tool}`} at ${new Date(origin.at).toISOString()} is in ${what} (${match.how})`;
  };

  // A client's answer to a server's sampling or elicitation request: withheld when it carries another server's secret.
  const guardAnswer = async (ctx: InterceptContext, keys: TaintKeys, serverId: string, answer: unknown): Promise<void> => {
    const read = readTaint(ctx, keys);
    const state = read instanceof Promise ? await read : read;
    if (state === undefined || state.secrets.size === 0) return;
    const reason = await taintedReason(answer, state, keys, serverId, `the answer to server ${serverId}'s ${ctx.serverMethod ?? 'request'}`);
    if (reason === undefined) return;
    const detail = { rule: VALUE_TAINT_RULE, reasons: [reason] };
    if (dryRun) {
      ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'observe', reason: `dry run: would withhold: ${reason}`, detail: { ...detail, dryRun: true, wouldBe: 'deny' } });
      return;
    }
    // An answer already given cannot be asked about: ask and deny both withhold it.
    const text = `${reason}; the answer is withheld`;
    ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'deny', reason: text, detail });
    throw new DeniedError(POLICY_INTERCEPTOR_ID, text);
  };

  const decideList = async (ctx: InterceptContext, next: () => Promise<unknown>): Promise<unknown> => {
    const listed = await next();
    if (denyRules.length === 0 || !Array.isArray(listed)) return listed;
    const keys = keysOf(ctx);
    const read = readTaint(ctx, keys);
    const state = read instanceof Promise ? await read : read;
    const hidden: string[] = [];
    const firedRules = new Set<string>();
    const connections = new Map<string, boolean>();
    if (readsConnected) for (const item of listed as readonly ListedItem[]) if (!connections.has(item.serverId)) connections.set(item.serverId, await connectedTo(ctx, item.serverId));
    const kept = (listed as readonly ListedItem[]).filter((item) => {
      const own = ownName(item);
      const labels = resolver.resolve(item.serverId, 'tool' in item ? own : undefined, item.definition);
      const verdict = evaluateRules(denyRules, variables(ctx, keys, state, item.serverId, exposedOf(item), item.definition, labels, NO_ARGS, connections.get(item.serverId) ?? true));
      if (verdict.outcome !== 'deny') return true;
      hidden.push(`${item.serverId}:${own}`);
      if (verdict.rule !== undefined) firedRules.add(verdict.rule);
      return false;
    });
    if (hidden.length === 0) return listed;
    const detail = { rule: [...firedRules][0], rules: [...firedRules], hidden };
    if (dryRun) {
      ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'observe', reason: `dry run: would hide ${hidden.length} item(s)`, detail: { ...detail, dryRun: true, wouldBe: 'deny' } });
      return listed;
    }
    ctx.record({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'change', reason: `hid ${hidden.length} item(s) denied by policy rules`, detail });
    return Object.freeze(kept);
  };

  return {
    id: POLICY_INTERCEPTOR_ID,
    phase: 'policy',
    async intercept(ctx, next) {
      if (LISTS.has(ctx.method)) return decideList(ctx, next);
      const serverId = ctx.server?.id ?? '';
      const keys = keysOf(ctx);
      const read = readTaint(ctx, keys);
      const state = read instanceof Promise ? await read : read;
      const definition = ctx.definition;
      const own = ctx.method === 'tools/call' && typeof ctx.params['name'] === 'string' ? ctx.params['name'] : undefined;
      const labels = ctx.method === 'server/request' ? NO_LABELS : resolver.resolve(serverId, own, definition, ctx.server?.info?.name);
      const name = ctx.exposedName ?? '';
      const args = ctx.method === 'server/request' ? ctx.params : ((ctx.params['arguments'] as Record<string, unknown> | undefined) ?? NO_ARGS);
      const connected = readsConnected ? await connectedTo(ctx, serverId) : true;
      const verdict = rules.length === 0 ? undefined : evaluateRules(rules, variables(ctx, keys, state, serverId, name, definition, labels, args, connected));
      const candidates: Candidate[] = [];
      if (verdict?.outcome !== undefined) candidates.push({ outcome: verdict.outcome, rule: verdict.rule as string, reasons: verdict.reasons });
      // A subscription reads nothing and sends nothing: rules decide it, the flow checks do not.
      if (trifecta !== 'off' && ctx.method !== 'server/request' && ctx.method !== 'resources/subscribe') {
        const reasons = trifectaReasons(state, labels, serverId, ctx.exposedName);
        if (reasons !== undefined) candidates.push({ outcome: trifecta, rule: TRIFECTA_RULE, reasons });
      }
      // Value taint guards what goes out to a server; a server's own request goes to the upstream client (its answer is checked below).
      if (valueTaint !== 'off' && ctx.method !== 'server/request' && ctx.method !== 'resources/subscribe' && state !== undefined && state.secrets.size > 0) {
        const found = taintedReason(ctx.params, state, keys, serverId, `this request to server ${serverId}`);
        const reason = found instanceof Promise ? await found : found;
        if (reason !== undefined) candidates.push({ outcome: valueTaint, rule: VALUE_TAINT_RULE, reasons: [reason] });
      }
      if (serverRequests !== 'off' && ctx.method === 'server/request' && ASKING_SERVER_METHODS.has(ctx.serverMethod ?? '')) {
        // Untrusted content by what it is, not the blanket label of an unvetted server: elicitation and sampling from
        // every server nobody vetted would be asked otherwise (what it returned is judged by the sanitiser's markers).
        const untrusted = state?.sources.find((s) => s.label === 'untrusted-content' && s.via !== UNVETTED_EVIDENCE);
        if (untrusted === undefined && injectedRequest(ctx)) {
          candidates.push({
            outcome: serverRequests,
            rule: SERVER_REQUEST_RULE,
            reasons: [`server ${serverId} asks for ${ctx.serverMethod} with text that reads like instructions (${injectionBy(ctx.decisions)}): a person must see what it wants to send`],
          });
        } else if (untrusted !== undefined) {
          candidates.push({
            outcome: serverRequests,
            rule: SERVER_REQUEST_RULE,
            reasons: [`server ${serverId} asks for ${ctx.serverMethod} while untrusted content is in the session (from ${untrusted.tool === undefined ? untrusted.server : `${untrusted.server}/${untrusted.tool}`}): a person must see what it wants to send`],
          });
        }
      }
      const decided = strongest(candidates);
      const asking = ctx.method === 'server/request' && ASKING_SERVER_METHODS.has(ctx.serverMethod ?? '');
      if (ctx.method === 'server/request' && (asking || injectedRequest(ctx))) {
        let answer: unknown;
        try {
          answer = await enforce(ctx, decided, next);
        } finally {
          // Injected text in a server's request: untrusted content entered the session when it got through,
          // and a server that tried is no more trusted when the request was refused (asked and denied).
          if (injectedRequest(ctx)) await taint(ctx, keys, serverId, ctx.serverMethod, NO_LABELS, undefined);
        }
        // The client's answer goes to the server: a sink like any request's arguments.
        if (asking && valueTaint !== 'off') await guardAnswer(ctx, keys, serverId, answer);
        return answer;
      }
      if (!USES.has(ctx.method)) return enforce(ctx, decided, next);
      let result: unknown;
      try {
        result = await enforce(ctx, decided, next);
      } catch (error) {
        // A server's error reaches the model as its result would: flagged, untrusted content entered the session; its secrets are fingerprinted.
        if (injectedRequest(ctx) || (valueTaint !== 'off' && !(error instanceof DeniedError))) await taint(ctx, keys, serverId, ctx.exposedName, NO_LABELS, errorContent(error));
        throw error;
      }
      const recorded = taint(ctx, keys, serverId, ctx.exposedName, labels, result);
      if (recorded !== undefined) await recorded;
      return result;
    },
  };
}

/**
 * `session` of the rule variables for a tainted session. Its `labels` and `sources` are built
 * when a rule reads them (CEL reads members by name), once per request: most rules never look
 * at the sources, and building them (a time string per source) on every call would be wasted.
 */
function sessionVariables(id: string, state: TaintState): RuleVariables['session'] {
  let labels: readonly string[] | undefined;
  let sources: readonly Readonly<Record<string, unknown>>[] | undefined;
  return {
    id,
    get labels() {
      return (labels ??= [...new Set(state.sources.map((s) => s.label))]);
    },
    get sources() {
      return (sources ??= state.sources.map((s) => ({ label: s.label, server: s.server, tool: s.tool ?? '', at: new Date(s.at).toISOString() })));
    },
  };
}

const DEFAULT_DECISION: Candidate = Object.freeze({ outcome: 'allow', rule: 'default', reasons: Object.freeze([]) });
const DEFAULT_ALLOW: Decision = Object.freeze({ interceptor: POLICY_INTERCEPTOR_ID, outcome: 'allow', detail: Object.freeze({ rule: 'default', reasons: DEFAULT_DECISION.reasons }) });

function strongest(candidates: readonly Candidate[]): Candidate {
  let best: Candidate | undefined;
  for (const c of candidates) if (best === undefined || RULE_OUTCOMES.indexOf(c.outcome) > RULE_OUTCOMES.indexOf(best.outcome)) best = c;
  if (best === undefined) return DEFAULT_DECISION;
  // The person who answers an ask (or reads a denial) sees every reason with that outcome, not only the first rule's:
  // a custom rule's "mail leaving the company" must not hide the trifecta behind the same call.
  const same = candidates.filter((c) => c !== best && c.outcome === best.outcome);
  return same.length === 0 ? best : { ...best, reasons: [...best.reasons, ...same.flatMap((c) => c.reasons)] };
}

/** What of a server's error reaches the model (and may carry a secret): its message and data. */
function errorContent(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return String(error);
  const e = error as { message?: unknown; data?: unknown };
  return { message: e.message, data: e.data };
}

/** Whether the sanitiser flagged a server's request, result or error (`detail.injection`). */
function injectedRequest(ctx: InterceptContext): boolean {
  return ctx.decisions.some((d) => d.detail?.['injection'] === true);
}

function injectionBy(decisions: readonly Decision[]): string {
  const markers = decisions.flatMap((d) => (d.detail?.['injection'] === true && Array.isArray(d.detail['markers']) ? (d.detail['markers'] as unknown[]).map(String) : []));
  return markers.length === 0 ? 'flagged by the sanitizer' : markers.slice(0, 3).join(', ');
}

/** A listed item as the host exposes it (tool, prompt, resource or template). */
interface ListedItem {
  readonly serverId: string;
  readonly definition: Readonly<Record<string, unknown>>;
  readonly name?: string;
  readonly uri?: string;
  readonly uriTemplate?: string;
  readonly tool?: unknown;
}

function exposedOf(item: ListedItem): string {
  return item.name ?? item.uri ?? item.uriTemplate ?? '';
}

function ownName(item: ListedItem): string {
  const d = item.definition;
  return typeof d['name'] === 'string' ? d['name'] : typeof d['uri'] === 'string' ? d['uri'] : typeof d['uriTemplate'] === 'string' ? d['uriTemplate'] : '';
}
