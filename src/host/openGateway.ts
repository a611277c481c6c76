/**
 * `openGateway(config, deps)`: the whole gateway `switchboard gateway` runs, composed in the
 * host layer, so a reader of `host/` knows what runs and an embedder gets the same gateway
 * with the same chain. The CLI opens what needs the platform (files, SQLite, PostgreSQL,
 * Redis, child processes, the terminal) and passes it in as {@link GatewayDeps}; this module
 * decides the order of everything else:
 *
 * 1. the audit log, wrapped for redaction (`switchboard.redact.audit`) and telemetry;
 * 2. call consent (built by `deps.consent`, given that log);
 * 3. the scanner and the policy (reloadable; with a cluster store, the cluster's policy);
 * 4. the chain ({@link buildChain}), the host on the admitted servers, and their start (not
 *    awaited: each server comes up on its own, see {@link OpenedGateway.started});
 * 5. the {@link Gateway} over the host.
 *
 * {@link OpenedGateway.apply} applies a reloaded config (servers reconciled, policy
 * reloaded and audited); {@link OpenedGateway.close} stops everything in reverse order.
 *
 * @module
 */
import type { DownstreamAuthority } from './principalClients.js';
import { tenantFromClaim, tenantInterceptor } from './tenantScope.js';
import type { AuditEntry, AuditLog } from './audit.js';
import { argumentsInterceptor } from './argumentChecks.js';
import { auditInterceptor } from './audit.js';
import { emittingAuditLog } from './auditTelemetry.js';
import { ClusterPolicy } from './clusterPolicy.js';
import { consentInterceptor } from './consent/consentInterceptor.js';
import { elicitationProvider } from './consent/elicitationProvider.js';
import { serverIdentity } from './pins/serverIdentity.js';
import { serverLabelsOf } from './configPolicy.js';
import type { HostConfig, ServerConfig } from './configTypes.js';
import type { TransportFactory } from './downstream.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES, type GatewayOptions } from './gateway.js';
import { buildChain } from './gatewayChain.js';
import { createFrontDoor, type FrontDoorOptions } from './frontDoor.js';
import type { StreamableHttpHandler } from '../transport/http/server/server.js';
import { guardInterceptor, type ConcurrencyStore, type RateLimitStore } from './guards.js';
import { Host } from './host.js';
import { gatewayProtectedPaths, protectedPathsInterceptor, protectedPathWarnings } from './protectedPathsInterceptor.js';
import { protectedPathSet, type PathPlatform, type ProtectedPath } from './protectedPaths.js';
import type { Interceptor } from './interceptors.js';
import type { NameAssignmentStore } from './namespacing.js';
import type { PinTrust } from './pins/pinTrust.js';
import type { PinStore } from './pins/pinStore.js';
import type { SharedPolicyStore } from './clusterPolicy.js';
import { describePolicyChange, policyChangeEntry, ReloadablePolicy } from './policy/policyReload.js';
import type { TaintStore } from './policy/taint.js';
import type { SecretFingerprints } from './policy/valueTaint.js';
import { redactResult, sanitizeInterceptor } from './sanitize/sanitize.js';
import { sanitizeRequestInterceptor } from './sanitize/sanitizeRequests.js';
import { ReviewNotices } from './reviewNotices.js';
import { Scanner } from './scanner/scanner.js';
import { findSecretValues } from './secrets/findSecrets.js';
import { redactingAuditLog } from './secrets/redact.js';
import { describeError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import type { Implementation } from '../protocol/model/common.js';

/** Call consent as the gateway runs it: the `consent` interceptor and what it must close. */
export interface GatewayCallConsent {
  readonly interceptor: Interceptor;
  close(): Promise<void>;
}

/** What the platform opens for {@link openGateway}. */
export interface GatewayDeps {
  readonly logger: Logger;
  /** Builds each server's transport (`defaultTransportFactory` of `switchboard/adapters/node-host`). */
  readonly transport: TransportFactory;
  /** The servers of `config` that may start: enabled, and each stdio launch approved (launch consent). */
  readonly admit: (config: HostConfig) => Promise<readonly ServerConfig[]>;
  /** Persisted name assignments. */
  readonly names?: NameAssignmentStore;
  /** The audit store; undefined when `switchboard.audit` is false (then nothing is recorded, and the log says so). */
  readonly audit?: AuditLog;
  /** The pins (opened and checked before any server starts); undefined when `switchboard.pins` is false. */
  readonly pins?: { readonly trust: PinTrust; readonly store: PinStore };
  /** Where the policy keeps taint; `fingerprints` when it is shared (then its fingerprint key is too). */
  readonly taint?: { readonly store: TaintStore; readonly fingerprints?: SecretFingerprints; close?(): void };
  /** The cluster's policy (PostgreSQL, `--store`): followed instead of the file's; `publish` publishes the file's at start. */
  readonly cluster?: { readonly store: SharedPolicyStore; readonly instance: string; readonly publish: boolean };
  /**
   * Builds call consent, given the (wrapped) audit log answers are recorded in and the live
   * config. Default: the `consent` interceptor with the upstream client's elicitation as the only
   * way to ask (a call the policy asks about, from a client that cannot be asked, is denied).
   */
  readonly consent?: (audit: AuditLog | undefined, current: () => HostConfig) => Promise<GatewayCallConsent>;
  /** Shared stores of the guards (Redis, `--cache`). */
  readonly guardStores?: { readonly rateLimitStore?: RateLimitStore; readonly concurrencyStore?: ConcurrencyStore };
  /** Observers in the `audit` phase, before the log (the console's metrics). */
  readonly observers?: readonly Interceptor[];
  /** The host's identity towards each server. */
  readonly clientInfo?: Implementation;
  /**
   * How paths behave here, for the check that keeps the gateway's own files (config, state
   * folder, `extra`) off-limits to its servers: the working folder, home, case, symlinks.
   * Default: compared as written, relative paths against the servers' folders only.
   */
  readonly files?: { readonly platform: PathPlatform; readonly cwd: string; readonly extra?: readonly ProtectedPath[] };
  /** Options of the {@link Gateway} beyond the config's (`server`: logger, sealed state keys, ...). */
  readonly gateway?: Omit<GatewayOptions, 'exposure'>;
  /**
   * Whose credentials downstream requests carry (`servers.<id>.auth`, `principalClients.ts`);
   * closed with the gateway. Without it a `per-user` or `token-exchange` server's calls are refused.
   */
  readonly authority?: Pick<DownstreamAuthority, 'wrap' | 'close' | 'connected'>;
}

/** A running gateway (see the module comment). */
export interface OpenedGateway {
  readonly host: Host;
  readonly gateway: Gateway;
  readonly scanner: Scanner;
  readonly policy: ReloadablePolicy;
  /** The audit log as the chain writes it (redacted, emitting); undefined when auditing is off. */
  readonly audit: AuditLog | undefined;
  /** Resolves once every server's first start settled (ready or failed); the gateway serves before. */
  readonly started: Promise<void>;
  /** The config in force (the last one {@link apply} took). */
  readonly config: () => HostConfig;
  /** Applies a reloaded config: servers reconciled (launches admitted again), the policy reloaded and audited. */
  apply(next: HostConfig): Promise<void>;
  /** Admits the current config's servers again (a launch was approved elsewhere). */
  readmit(): Promise<void>;
  /**
   * The gateway's one front door over HTTP (`frontDoor.ts`): MCP, health and readiness (this
   * host's), and the mounted admin routes, behind one Host/Origin rule and the given verifiers.
   * Any runtime serves it (`listen` of `switchboard/adapters/node` on Node).
   */
  frontDoor(options: Omit<FrontDoorOptions, 'health'>): StreamableHttpHandler;
  /** Stops the gateway, consent, the servers and the stores the gateway opened, in reverse order. */
  close(): Promise<void>;
}

/** The default call consent: asked through the upstream client's elicitation, answers recorded in the audit log. */
function elicitedConsent(audit: AuditLog | undefined, current: () => HostConfig, pins: PinTrust | undefined): Promise<GatewayCallConsent> {
  const interceptor = consentInterceptor({
    providers: [elicitationProvider()],
    identityOf: (id) => {
      const spec = current().servers.find((s) => s.id === id);
      return spec === undefined ? undefined : (pins?.identityOf(spec) ?? serverIdentity(spec));
    },
    ...(audit !== undefined ? { audit: async (entry: AuditEntry) => void (await audit.append(entry)) } : {}),
  });
  return Promise.resolve({ interceptor, close: () => Promise.resolve() });
}

/** The front door of `gateway` over `host` (see {@link OpenedGateway.frontDoor}), for a gateway assembled by hand. */
export function gatewayFrontDoor(gateway: Gateway, host: Host): Pick<OpenedGateway, 'frontDoor'> {
  return { frontDoor: (options) => createFrontDoor(gateway.server, { ...options, health: () => host.health() }) };
}

/** Opens the gateway on `config` (see the module comment); rejects, with nothing left running, when a part cannot start. */
export async function openGateway(config: HostConfig, deps: GatewayDeps): Promise<OpenedGateway> {
  const { logger } = deps;
  let current = config;
  const secretOptions = { entropy: config.redact.entropy };
  if (deps.audit === undefined) logger.warn('switchboard.audit is false: requests are not recorded in the audit log (no trail of who called what, denials included)');
  // What reaches the log (requests and approvals alike) passes secret redaction first; with a
  // logger provider registered (telemetry), each durable record is also an OTel log record.
  const redacted = deps.audit === undefined || !config.redact.audit ? deps.audit : redactingAuditLog(deps.audit, secretOptions);
  const audit = redacted === undefined ? undefined : emittingAuditLog(redacted, { onError: (message) => logger.warn(message) });
  const consent = await (deps.consent ?? ((log, live) => elicitedConsent(log, live, deps.pins?.trust)))(audit, () => current);
  const closers: (() => Promise<void> | void)[] = [() => consent.close()];
  let closed = false;
  const closeAll = async (): Promise<void> => {
    closed = true;
    for (const close of closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        logger.error(`closing the gateway: ${describeError(error)}`);
      }
    }
  };
  try {
    // The poisoning scanner (trust phase): per-server mode from the config, read live so a reload applies.
    // A quarantine or a scanner verdict is logged once per item per change (#32), not per refresh or call.
    const notices = new ReviewNotices((line) => logger.warn(line));
    const scanner = new Scanner({ modeOf: (id) => current.servers.find((s) => s.id === id)?.options.scan, onReport: (id, r) => notices.scannerReport(id, r) });
    if (deps.taint?.close !== undefined) closers.push(() => deps.taint?.close?.());
    // `principal.tenant` from the configured claim of a verified token (read at start).
    const claim = config.gateway.auth.kind === 'oauth' ? config.gateway.auth.tenantClaim : undefined;
    const tenantOf = claim === undefined ? undefined : tenantFromClaim(claim);
    const policy = new ReloadablePolicy(
      {
        // An `ask` goes to the consent interceptor (which fails closed when nobody answers).
        canAsk: true,
        // Value taint: the secrets the sanitize layer's rules find in results, fingerprinted.
        detectSecrets: (text) => findSecretValues(text, secretOptions),
        redact: (result) => redactResult(result, secretOptions),
        findingsOf: (definition) => scanner.verdictOf(definition)?.findings,
        // Labels inferred from what is pinned (the launch as configured now, serverInfo, definitions).
        inference: { launchOf: (id) => current.servers.find((s) => s.id === id)?.launch },
        ...(tenantOf !== undefined ? { tenantOf } : {}),
        connected: (principal, id, tenant) => {
          const spec = current.servers.find((s) => s.id === id);
          return spec === undefined || deps.authority === undefined ? Promise.resolve(spec === undefined || (spec.options.auth?.mode ?? 'shared') === 'shared') : deps.authority.connected(principal, spec, tenant);
        },
        serverAuthority: (id) => {
          const options = current.servers.find((s) => s.id === id)?.options;
          return { auth: options?.auth?.mode ?? 'shared', tenant: options?.tenant ?? '' };
        },
        ...(deps.taint !== undefined ? { store: deps.taint.store, ...(deps.taint.fingerprints !== undefined ? { fingerprints: deps.taint.fingerprints } : {}) } : {}),
      },
      config.policy,
      serverLabelsOf(config.servers),
    );
    const cluster =
      deps.cluster === undefined
        ? undefined
        : new ClusterPolicy(deps.cluster.store, policy, {
            instance: deps.cluster.instance,
            warn: (line) => logger.warn(line),
            ...(audit !== undefined ? { audit: async (entry: AuditEntry) => void (await audit.append(entry)) } : {}),
          });
    await cluster?.start(config.policy, serverLabelsOf(config.servers), deps.cluster?.publish === true);
    // The gateway's own files: refused to every server, and said at start where a server's arguments or roots reach them.
    const cwd = deps.files?.cwd ?? '/';
    const paths = protectedPathSet(gatewayProtectedPaths(config, cwd, deps.files?.extra), deps.files?.platform ?? { caseInsensitive: false });
    const warnPaths = (of: HostConfig): void => protectedPathWarnings(of, paths, cwd).forEach((line) => logger.warn(line));
    warnPaths(config);
    if (cluster !== undefined) closers.push(() => cluster.stop());
    const interceptors = buildChain({
      ...(deps.observers !== undefined ? { observers: deps.observers } : {}),
      ...(audit !== undefined ? { audit: auditInterceptor(audit) } : {}),
      ...(deps.pins !== undefined ? { pins: deps.pins.trust.interceptor() } : {}),
      tenant: tenantInterceptor({ tenantOf: tenantOf ?? (() => undefined), serverTenant: (id) => current.servers.find((s) => s.id === id)?.options.tenant }),
      scanner: scanner.interceptor,
      paths: protectedPathsInterceptor({ paths, config: () => current, cwd }),
      arguments: argumentsInterceptor({ config: () => current, platform: paths.platform, canAsk: true }),
      policy: policy.interceptor,
      consent: consent.interceptor,
      ...(config.guards !== undefined ? { guards: guardInterceptor({ ...config.guards, ...deps.guardStores }) } : {}),
      ...(config.sanitize.mode !== 'off' ? { sanitize: { results: sanitizeInterceptor(config.sanitize), requests: sanitizeRequestInterceptor(config.sanitize) } } : {}),
    });
    const host = await Host.open({
      servers: await deps.admit(config),
      namespacing: config.namespacing,
      separator: config.separator,
      ...(deps.names !== undefined ? { nameStore: deps.names } : {}),
      transport: deps.transport,
      logger,
      clientInfo: deps.clientInfo ?? { name: 'switchboard-gateway', version: SWITCHBOARD_VERSION },
      capabilities: GATEWAY_CLIENT_CAPABILITIES,
      ...(deps.pins !== undefined ? { trust: deps.pins.trust } : {}),
      ...(config.gateway.limits !== undefined ? { notificationLimits: config.gateway.limits } : {}),
      interceptors,
      ...(deps.authority !== undefined ? { authority: deps.authority } : {}),
    });
    closers.push(() => host.close());
    if (deps.authority !== undefined) closers.push(() => deps.authority?.close());
    // `switchboard pins approve|reject` in another process or another instance: reload and vet every server's lists again.
    const pins = deps.pins;
    const unwatchPins = pins?.store.watch?.(() => void pins.trust.reload().then(() => host.refreshTrust()));
    if (unwatchPins !== undefined) closers.push(unwatchPins);
    // Each server comes up on its own: the gateway serves at once with those that are ready
    // (lists wait for the start window), and the others join when they are (`Host.start`).
    const started = host.start().then(() => {
      for (const h of closed ? [] : host.health()) {
        if (h.state !== 'ready') logger.warn(`server ${h.id} is not ready: ${h.problem ?? h.lastError ?? h.state}`, { server: h.id });
        else if (h.problem !== undefined) logger.warn(`server ${h.id}: ${h.problem}`, { server: h.id });
      }
    });
    // The scanner judges every list the host exposes as soon as it changes, not only when a client
    // lists: its reports are logged at start, and the console shows each item's verdict.
    const scanAll = (): void => {
      notices.withheld(host.withheld);
      scanner.filter(host.tools);
      scanner.filter(host.prompts);
      scanner.filter(host.resources);
      scanner.filter(host.templates);
    };
    scanAll();
    closers.push(host.onChange(scanAll));
    const gateway = new Gateway(host, { ...deps.gateway, exposure: config.exposure });
    closers.push(() => gateway.close());
    const opened: OpenedGateway = {
      host,
      gateway,
      scanner,
      policy,
      audit,
      config: () => current,
      started,
      async apply(next) {
        current = next;
        warnPaths(next);
        await host.reconcile(await deps.admit(next));
        // Atomic: the new rules were compiled when the config was read; a config that fails to compile never gets here.
        if (cluster !== undefined) return cluster.fileChanged(next.policy, serverLabelsOf(next.servers));
        const change = policy.reload(next.policy, serverLabelsOf(next.servers));
        if (change === undefined) return;
        logger.warn(describePolicyChange(change));
        await audit?.append(policyChangeEntry(change, Date.now())).catch((error: unknown) => logger.error(`the policy change could not be audited: ${describeError(error)}`));
      },
      async readmit() {
        await host.reconcile(await deps.admit(current));
      },
      frontDoor: gatewayFrontDoor(gateway, host).frontDoor,
      close: closeAll,
    };
    return opened;
  } catch (error) {
    // Whatever started is stopped: a gateway that failed to open leaves nothing running.
    await closeAll();
    throw error;
  }
}
