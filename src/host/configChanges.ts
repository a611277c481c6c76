/**
 * Which changes of a reloaded config weaken security: {@link weakeningChanges}`(old, next)`, a
 * pure function, lists each with a sentence a person can judge. The gateway applies a reloaded
 * config live only when the list is empty (`configReload.ts`); otherwise the config waits for
 * a person's approval out of band and the old one keeps running.
 *
 * What counts as weakening (everything else only tightens or is neutral):
 * - a server added or enabled; any change of a launch (command, argument, working directory,
 *   env name or value as written, transport kind, URL, header); OAuth settings changed;
 * - a tool filter widened (an `allow` pattern added or the list dropped, a `deny` pattern
 *   removed); roots added; labels removed; scanner or signature mode lowered; per-server
 *   limits raised;
 * - policy: a non-`allow` rule removed, its `when` changed or its outcome lowered (the
 *   strongest matching outcome wins, so an added rule of any outcome, or a removed `allow`,
 *   cannot weaken); dry run turned on; a built-in lowered (`deny` > `ask` > `off`); taint
 *   windows shortened; fewer sessions tracked;
 * - pins, audit, redaction, sanitising turned off or lowered; audit durability lowered; audit retention turned on or changed;
 * - guards removed or loosened; consent providers added, `ask` patterns removed, the webhook
 *   changed; trusted keys added; namespacing lowered or the separator changed; the state
 *   folder, shared stores, listen host, public URL or gateway auth changed;
 * - any other key that changed and is not classified here (fail closed: a key added later is
 *   judged weakening until someone teaches this module otherwise).
 *
 * Neutral: `era`, `exposure`, the listen port and path, `console`, consent `timeoutMs`,
 * `approvedLaunches` (ignored: a config file cannot approve its own launches), rule `reason`s.
 *
 * @module
 */
import { canonicalize } from '../util/canonicalJson.js';
import type { HostConfig, ServerConfig, ServerOptions } from './configTypes.js';
import { writtenEnv } from './launchKeys.js';
import { compileGlob } from './toolFilter.js';
import type { ServerLabelConfig } from './policy/labels.js';
import type { PolicyConfig } from './policy/policyConfig.js';
import { RULE_OUTCOMES } from './policy/rules.js';

/** One change of a reloaded config that weakens a control: where, and why in words. */
export interface WeakeningChange {
  /** The config path it concerns (`mcpServers.fs.env`, `switchboard.policy.trifecta`). */
  readonly path: string;
  /** A sentence a person can judge. */
  readonly reason: string;
}

/** Every change from `old` to `next` that turns a control off or down (see the module comment); empty when `next` only tightens. */
export function weakeningChanges(old: HostConfig, next: HostConfig): WeakeningChange[] {
  const out: WeakeningChange[] = [];
  const add = (path: string, reason: string): void => void out.push({ path, reason });
  serverChanges(old.servers, next.servers, add);
  policyChanges(old.policy, next.policy, add);
  topLevelChanges(old, next, add);
  return out;
}

type Add = (path: string, reason: string) => void;

/** Top-level keys this module judges (the rest, when changed, are weakening by default). */
const JUDGED = new Set(['file', 'servers', 'policy', 'warnings', 'approvedLaunches', 'exposure', 'console', 'namespacing', 'separator', 'stateDir', 'store', 'cache', 'gateway', 'guards', 'consent', 'sanitize', 'redact', 'pins', 'audit', 'auditDurability', 'auditSyncIntervalMs', 'auditRetention', 'trustedKeys']);
const NAMESPACING = ['never', 'on-collision', 'always'];
const SANITIZE = ['off', 'flag', 'strip'];
const BUILTIN = ['off', 'ask', 'deny'];
const SCAN = ['off', 'warn', 'block'];
const SIGNATURE = ['off', 'warn', 'require'];
const DURABILITY = ['batch', 'sync'];

/** Deep equality of JSON-like values; a value that is not JSON is equal only to itself (fail closed). */
function same(a: unknown, b: unknown): boolean {
  try {
    return canonicalize(a ?? null) === canonicalize(b ?? null);
  } catch {
    return a === b;
  }
}

/** True when `next` is lower than `old` on `scale` (weakest first); an unknown value counts as the lowest. */
function lowered(scale: readonly string[], old: string, next: string): boolean {
  return scale.indexOf(next) < scale.indexOf(old);
}

/** True when `next` is a looser limit than `old` (`undefined` = no limit). */
function raised(old: number | undefined, next: number | undefined): boolean {
  if (old === undefined) return false;
  return next === undefined || next > old;
}

function quoted(values: Iterable<string>): string {
  return [...values].map((v) => JSON.stringify(v)).join(', ');
}

function serverChanges(old: readonly ServerConfig[], next: readonly ServerConfig[], add: Add): void {
  const before = new Map(old.map((s) => [s.id, s]));
  for (const server of next) {
    const at = `mcpServers.${server.id}`;
    const was = before.get(server.id);
    if (server.disabled) continue;
    if (was === undefined) {
      add(at, `server "${server.id}" added: ${describeServerLaunch(server)}`);
      continue;
    }
    if (was.disabled) {
      add(`${at}.disabled`, `server "${server.id}" enabled: ${describeServerLaunch(server)}`);
      continue;
    }
    launchChanges(was, server, add);
    optionChanges(server.id, was.options, server.options, add);
  }
}

/** The launch in words: command and arguments, or the URL; env names only. */
function describeServerLaunch(server: ServerConfig): string {
  const launch = server.launch;
  if (launch.kind !== 'stdio') return `connects to ${launch.kind} ${JSON.stringify(launch.url)}`;
  const env = Object.keys(launch.env);
  return `runs ${quoted([launch.command, ...launch.args])}${launch.cwd !== undefined ? ` in ${JSON.stringify(launch.cwd)}` : ''}${env.length > 0 ? ` with env ${env.sort().join(', ')}` : ''}`;
}

function launchChanges(was: ServerConfig, now: ServerConfig, add: Add): void {
  const at = `mcpServers.${now.id}`;
  const a = was.launch;
  const b = now.launch;
  if (a.kind !== b.kind) return add(at, `server "${now.id}" changed from ${a.kind} to ${b.kind}: ${describeServerLaunch(now)}`);
  if (a.kind === 'stdio' && b.kind === 'stdio') {
    if (a.command !== b.command) add(`${at}.command`, `server "${now.id}" command changed from ${JSON.stringify(a.command)} to ${JSON.stringify(b.command)}`);
    if (!same(a.args, b.args)) add(`${at}.args`, `server "${now.id}" arguments changed from [${quoted(a.args)}] to [${quoted(b.args)}]`);
    if (a.cwd !== b.cwd) add(`${at}.cwd`, `server "${now.id}" working directory changed from ${JSON.stringify(a.cwd ?? null)} to ${JSON.stringify(b.cwd ?? null)}`);
    const envA = writtenEnv(was);
    const envB = writtenEnv(now);
    for (const name of Object.keys(envB).sort()) {
      if (!Object.hasOwn(envA, name)) add(`${at}.env.${name}`, `server "${now.id}" env ${name} added (value not shown)`);
      else if (envA[name] !== envB[name]) add(`${at}.env.${name}`, `server "${now.id}" env ${name} value changed (value not shown)`);
    }
    for (const name of Object.keys(envA).sort()) if (!Object.hasOwn(envB, name)) add(`${at}.env.${name}`, `server "${now.id}" env ${name} removed`);
    return;
  }
  if (a.kind !== 'stdio' && b.kind !== 'stdio') {
    if (a.url !== b.url) add(`${at}.url`, `server "${now.id}" URL changed from ${JSON.stringify(a.url)} to ${JSON.stringify(b.url)}`);
    const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
    for (const name of [...names].sort()) if (a.headers[name] !== b.headers[name]) add(`${at}.headers.${name}`, `server "${now.id}" header ${name} changed (value not shown)`);
  }
}

function optionChanges(id: string, a: ServerOptions, b: ServerOptions, add: Add): void {
  const at = `switchboard.servers.${id}`;
  if (b.tools.allow === undefined && a.tools.allow !== undefined) add(`${at}.tools.allow`, `server "${id}": the tool allow-list was removed (every tool is exposed)`);
  else if (b.tools.allow !== undefined && a.tools.allow !== undefined) {
    // A pattern is covered when it was there, or names one tool (no wildcard) an old pattern matches.
    const old = a.tools.allow.map(compileGlob);
    const added = b.tools.allow.filter((p) => !a.tools.allow?.includes(p) && (/[*?]/.test(p) || !old.some((match) => match(p))));
    if (added.length > 0) add(`${at}.tools.allow`, `server "${id}": tools allowed now also match ${quoted(added)}`);
  }
  const undenied = a.tools.deny.filter((p) => !b.tools.deny.includes(p));
  if (undenied.length > 0) add(`${at}.tools.deny`, `server "${id}": tools no longer denied: ${quoted(undenied)}`);
  if (raised(a.maxConcurrency, b.maxConcurrency)) add(`${at}.maxConcurrency`, `server "${id}": concurrency limit raised from ${a.maxConcurrency} to ${b.maxConcurrency}`);
  if (raised(a.timeoutMs, b.timeoutMs)) add(`${at}.timeoutMs`, `server "${id}": timeout raised from ${a.timeoutMs} ms to ${b.timeoutMs} ms`);
  if (!same(a.oauth, b.oauth)) add(`${at}.oauth`, `server "${id}": OAuth settings changed (client, scopes or redirect port)`);
  if (!same(a.auth ?? { mode: 'shared' }, b.auth ?? { mode: 'shared' })) add(`${at}.auth`, authChange(id, a.auth, b.auth));
  if (a.tenant !== b.tenant) add(`${at}.tenant`, `server "${id}": tenant changed from ${a.tenant ?? '(none)'} to ${b.tenant ?? '(none)'} (who may see and call it)`);
  if (lowered(SIGNATURE, a.signature ?? 'warn', b.signature ?? 'warn')) add(`${at}.signature`, `server "${id}": signature check lowered from ${a.signature ?? 'warn'} to ${b.signature ?? 'warn'}`);
  if (lowered(SCAN, a.scan ?? 'block', b.scan ?? 'block')) add(`${at}.scan`, `server "${id}": scanner lowered from ${a.scan ?? 'block'} to ${b.scan ?? 'block'}`);
  const roots = (b.roots ?? []).filter((r) => !(a.roots ?? []).some((o) => o.uri === r.uri));
  if (roots.length > 0) add(`${at}.roots`, `server "${id}": roots added: ${quoted(roots.map((r) => r.uri))}`);
  labelChanges(id, a.labels, b.labels, add);
  const known = new Set(['tools', 'timeoutMs', 'maxConcurrency', 'era', 'oauth', 'auth', 'tenant', 'roots', 'scan', 'signature', 'labels']);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!known.has(key) && !same((a as unknown as Record<string, unknown>)[key], (b as unknown as Record<string, unknown>)[key])) add(`${at}.${key}`, `server "${id}": ${key} changed (not known to be safe)`);
  }
}

/** What a changed `auth` does: another mode, or other token-exchange settings (which scopes a call asks for included). */
function authChange(id: string, a: ServerOptions['auth'], b: ServerOptions['auth']): string {
  if (a?.mode !== 'token-exchange' || b?.mode !== 'token-exchange') return `server "${id}": downstream authority changed from ${a?.mode ?? 'shared'} to ${b?.mode ?? 'shared'} (whose credentials its calls carry)`;
  const tools = [...new Set([...Object.keys(a.toolScopes ?? {}), ...Object.keys(b.toolScopes ?? {})])].filter((t) => !same(ownScopes(a.toolScopes, t), ownScopes(b.toolScopes, t)));
  const what = tools.length > 0 ? `; the scopes of tools ${quoted(tools)}` : '';
  return `server "${id}": token-exchange settings changed (authorization server, client or scopes${what}): what its calls are authorised to do`;
}

function ownScopes(map: Readonly<Record<string, readonly string[]>> | undefined, tool: string): readonly string[] | undefined {
  return map !== undefined && Object.hasOwn(map, tool) ? map[tool] : undefined;
}

function labelChanges(id: string, a: ServerLabelConfig | undefined, b: ServerLabelConfig | undefined, add: Add): void {
  const at = `switchboard.servers.${id}`;
  const removed = (a?.labels ?? []).filter((l) => !(b?.labels ?? []).includes(l));
  if (removed.length > 0) add(`${at}.labels`, `server "${id}": labels removed: ${quoted(removed)}`);
  for (const [pattern, labels] of Object.entries(a?.toolLabels ?? {})) {
    const kept = b?.toolLabels[pattern] ?? [];
    const gone = labels.filter((l) => !kept.includes(l));
    if (gone.length > 0) add(`${at}.toolLabels`, `server "${id}": labels of tools ${JSON.stringify(pattern)} removed: ${quoted(gone)}`);
  }
  // A new pattern replaces what inference gave the tools it matches; turning inference off drops it all.
  const added = Object.keys(b?.toolLabels ?? {}).filter((p) => a?.toolLabels[p] === undefined && b?.inferLabels !== false);
  if (added.length > 0) add(`${at}.toolLabels`, `server "${id}": tool label patterns added (they replace inferred labels of the tools they match): ${quoted(added)}`);
  if (b?.inferLabels === false && a?.inferLabels !== false) add(`${at}.inferLabels`, `server "${id}": label inference turned off`);
}

function policyChanges(a: PolicyConfig, b: PolicyConfig, add: Add): void {
  const at = 'switchboard.policy';
  // The strongest matching outcome wins: every non-allow rule of `a` must still be there, with the same condition and an outcome at least as strong.
  const rank = (outcome: string): number => RULE_OUTCOMES.indexOf(outcome as never);
  for (const rule of a.rules) {
    if (rule.outcome === 'allow') continue;
    if (b.rules.some((r) => r.when === rule.when && rank(r.outcome) >= rank(rule.outcome))) continue;
    const renamed = b.rules.find((r) => r.id === rule.id);
    if (renamed === undefined) add(`${at}.rules`, `policy rule "${rule.id}" (${rule.outcome} when ${rule.when}) removed`);
    else if (renamed.when !== rule.when) add(`${at}.rules`, `policy rule "${rule.id}" condition changed from ${JSON.stringify(rule.when)} to ${JSON.stringify(renamed.when)}`);
    else add(`${at}.rules`, `policy rule "${rule.id}" outcome lowered from ${rule.outcome} to ${renamed.outcome}`);
  }
  if (!a.dryRun && b.dryRun) add(`${at}.dryRun`, 'policy dry run turned on (decisions are recorded, never enforced)');
  for (const key of ['trifecta', 'valueTaint', 'serverRequests'] as const) {
    if (lowered(BUILTIN, a[key], b[key])) add(`${at}.${key}`, `policy ${key} lowered from ${a[key]} to ${b[key]}`);
  }
  if (b.windows.sessionMs < a.windows.sessionMs || b.windows.principalMs < a.windows.principalMs) add(`${at}.taintWindows`, 'policy taint windows shortened (taint is forgotten sooner)');
  if (b.maxTrackedSessions < a.maxTrackedSessions) add(`${at}.maxTrackedSessions`, `policy tracks fewer sessions (${a.maxTrackedSessions} → ${b.maxTrackedSessions}): taint is evicted sooner`);
}

function topLevelChanges(a: HostConfig, b: HostConfig, add: Add): void {
  const s = 'switchboard';
  if (lowered(NAMESPACING, a.namespacing, b.namespacing)) add(`${s}.namespacing`, `namespacing lowered from ${a.namespacing} to ${b.namespacing} (names of one server may pass as another's)`);
  if (a.separator !== b.separator) add(`${s}.separator`, `namespace separator changed from ${JSON.stringify(a.separator)} to ${JSON.stringify(b.separator)}`);
  if (a.stateDir !== b.stateDir) add(`${s}.stateDir`, `state folder moved from ${JSON.stringify(a.stateDir)} to ${JSON.stringify(b.stateDir)}`);
  if (a.store !== b.store) add(`${s}.store`, 'shared store (switchboard.store) changed');
  if (a.cache !== b.cache) add(`${s}.cache`, 'shared cache (switchboard.cache) changed');
  if (a.gateway.host !== b.gateway.host) add(`${s}.gateway.host`, `listen host changed from ${a.gateway.host} to ${b.gateway.host}`);
  // Sign-in links and the OAuth redirect URI point there: a rewritten config could send people's sign-ins to another host.
  if (a.gateway.publicUrl !== b.gateway.publicUrl) add(`${s}.gateway.publicUrl`, `public URL changed from ${a.gateway.publicUrl ?? '(the listening address)'} to ${b.gateway.publicUrl ?? '(the listening address)'} (sign-in links and the OAuth redirect URI point there)`);
  if (!same(a.gateway.auth, b.gateway.auth)) add(`${s}.gateway.auth`, `gateway authentication changed (now ${b.gateway.auth.kind})`);
  guardChanges(a, b, add);
  consentChanges(a, b, add);
  if (lowered(SANITIZE, a.sanitize.mode, b.sanitize.mode)) add(`${s}.sanitize.mode`, `result sanitising lowered from ${a.sanitize.mode} to ${b.sanitize.mode}`);
  if (a.sanitize.wrap && !b.sanitize.wrap) add(`${s}.sanitize.wrap`, 'injection notices on results turned off');
  if (a.sanitize.redactSecrets && !b.sanitize.redactSecrets) add(`${s}.sanitize.redactSecrets`, 'secret masking in results turned off');
  for (const key of ['logs', 'audit', 'entropy'] as const) if (a.redact[key] && !b.redact[key]) add(`${s}.redact.${key}`, `secret redaction (${key}) turned off`);
  if (a.pins && !b.pins) add(`${s}.pins`, 'pins turned off (rug pulls are no longer quarantined)');
  if (a.audit && !b.audit) add(`${s}.audit`, 'the audit log turned off');
  if (lowered(DURABILITY, a.auditDurability, b.auditDurability)) add(`${s}.audit.durability`, `audit durability lowered from ${a.auditDurability} to ${b.auditDurability}`);
  if (b.auditDurability === 'batch' && raised(a.auditSyncIntervalMs ?? 10, b.auditSyncIntervalMs ?? 10)) add(`${s}.audit.syncIntervalMs`, 'audit sync interval raised (a crash can lose more records)');
  // Retention turned on or changed moves records out of the live log (to its folder); turned off keeps them.
  const retention = b.auditRetention;
  if (retention !== undefined && !same(a.auditRetention, retention)) add(`${s}.audit.retention`, `audit retention turned on or changed (records move out of the live log to ${retention.archiveDir})`);
  const keys = a.trustedKeys.map((k) => canonicalize(k));
  const trusted = b.trustedKeys.filter((k) => !keys.includes(canonicalize(k)));
  if (trusted.length > 0) add(`${s}.trustedKeys`, `publisher keys trusted now: ${trusted.map((k) => k.name ?? 'unnamed').join(', ')}`);
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!JUDGED.has(key) && !same((a as unknown as Record<string, unknown>)[key], (b as unknown as Record<string, unknown>)[key])) add(`${s}.${key}`, `${key} changed (not known to be safe)`);
  }
}

function guardChanges(a: HostConfig, b: HostConfig, add: Add): void {
  const at = 'switchboard.guards';
  const ga = a.guards;
  const gb = b.guards;
  if (ga === undefined) return;
  if (gb === undefined) return add(at, 'guards removed (rate limits, caps, circuit breaker)');
  const rules = (gb.rateLimits ?? []).map((r) => canonicalize(r));
  const dropped = (ga.rateLimits ?? []).filter((r) => !rules.includes(canonicalize(r)));
  if (dropped.length > 0) add(`${at}.rateLimits`, `rate limits removed or loosened: ${dropped.map((r) => `${r.max} per ${r.perMs} ms by ${r.by.join('+') || 'everyone'}`).join('; ')}`);
  if (raised(ga.maxConcurrentPerPrincipal, gb.maxConcurrentPerPrincipal)) add(`${at}.maxConcurrentPerPrincipal`, 'concurrency cap per principal raised or removed');
  if (raised(ga.maxResultBytes, gb.maxResultBytes)) add(`${at}.maxResultBytes`, 'result size cap raised or removed');
  const ca = ga.circuitBreaker;
  const cb = gb.circuitBreaker;
  if (ca !== undefined && (cb === undefined || cb.failures > ca.failures || cb.openMs < ca.openMs)) add(`${at}.circuitBreaker`, 'circuit breaker removed or loosened');
}

function consentChanges(a: HostConfig, b: HostConfig, add: Add): void {
  const at = 'switchboard.consent';
  const providers = b.consent.providers.filter((p) => !a.consent.providers.includes(p));
  if (providers.length > 0) add(`${at}.providers`, `more ways to answer consent: ${quoted(providers)}`);
  const asks = a.consent.ask.filter((p) => !b.consent.ask.includes(p));
  if (asks.length > 0) add(`${at}.ask`, `calls that no longer always ask: ${quoted(asks)}`);
  if (!same(a.consent.webhook, b.consent.webhook) && b.consent.webhook !== undefined) add(`${at}.webhook`, `consent webhook changed (answers from ${JSON.stringify(b.consent.webhook.url)})`);
}
