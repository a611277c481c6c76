/**
 * `switchboard gateway`: runs the host on a `switchboard.json` and serves its guarded view
 * as one MCP server, over Streamable HTTP (both eras on one endpoint) or stdio. The HTTP side
 * needs a bearer token by default (generated on first run under the state folder, mode 0600,
 * printed once); `--no-auth` is allowed on loopback only. `/healthz` answers while the process
 * runs (from the start: each server comes up on its own), `/readyz` once every enabled server
 * was tried and at least one is ready. Stopping is bounded and leaves no server process
 * behind (`gatewayLifecycle.ts`).
 *
 * Before a stdio server is first started, or after its launch changed, the exact command,
 * arguments, working directory and environment variables (names, and values as written) need
 * consent: a prompt in a TTY, `--yes` for this run, or the console. Approvals are keyed with
 * the state folder's approval key (`host/launchKeys.ts`); a config file cannot approve its own
 * launches. Without consent the server is not started and the message says how to approve; the
 * others still run.
 *
 * The config file is watched (`gatewayReload.ts`): a change that only tightens applies without
 * a restart; one that weakens security (a control off or down, a server added, a launch
 * changed) waits for `switchboard config approve` or the console, and the running config is
 * kept meanwhile; a config that no longer parses is reported and the running one kept.
 *
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { HostConfig, ServerConfig } from '../host/configTypes.js';
import { openGateway } from '../host/openGateway.js';
import { tenantFromClaim } from '../host/tenantScope.js';
import { admitLaunches, LaunchNotApprovedError, type LaunchApprovalStore } from '../host/launchConsent.js';
import { defaultTransportFactory } from '../adapters/hostTransports.js';
import { redactResult } from '../host/sanitize/sanitize.js';
import { redactingLogger } from '../host/secrets/redact.js';
import { loadTelemetry } from './telemetrySetup.js';
import { refusedReloadEntry } from '../host/policy/policyReload.js';
import { PersistentTaintStore } from '../host/policy/taintPersistence.js';
import { SecretFingerprints } from '../host/policy/valueTaint.js';
import { hostOAuthHooks, loadConfig, localIdentityKey, openPins } from './hostSetup.js';
import { connectionStoreInUse, lazyConnectionStore, openConnectionStore } from './connectionStores.js';
import { gatewayDownstreamAuth } from './gatewayDownstreamAuth.js';
import { openStateStores } from '../store/jsonFileStore.js';
import { SqliteAuditLog } from '../store/sqliteAudit.js';
import { SqliteTaintSnapshot } from '../store/sqliteTaintStore.js';
import { auditFile, auditStoreOptions } from './auditFiles.js';
import { instanceName, openSharedStores, sharedGuardStores } from './sharedStores.js';
import { StdioServerTransport } from '../transport/stdio/server.js';
import type { ListeningServer } from '../adapters/nodeHttp.js';
import { describeError } from '../util/errors.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { createLineLogger, formatLogLine, type Logger } from '../util/logger.js';
import { counted } from '../util/plural.js';
import { CliFailure, portOption, UsageError, type ParsedArgs } from './args.js';
import { anchoredAudit, anchorDir } from './stateAnchors.js';
import { startAuditRetention } from './auditRetentionSetup.js';
import { stateSecret, type StateSecret } from './stateSecret.js';
import { approvalKey } from './approvalKey.js';
import { gatewayReload } from './gatewayReload.js';
import { gatewayConsent, type GatewayConsent } from './gatewayConsent.js';
import { askYesNo, printLaunchFindings } from './consentTerminal.js';
import { ConsoleMetrics } from '../console/consoleMetrics.js';
import { consoleOAuthSignIn, gatewayConsole, PendingLaunches, publishConsole } from './gatewayConsole.js';
import { tokenDigest } from '../auth/resource/staticTokens.js';
import { launchApprovalSteps } from '../host/setupNotice.js';
import { consoleUrl } from './consoleUrl.js';
import { allowedHostsFor } from '../host/frontDoor.js';
import { GatewayLifecycle } from './gatewayLifecycle.js';
import { nodePathPlatform } from './pathPlatform.js';
import { configFileOption, recordRunningGateway, userFolder } from './userFolder.js';
import { connectionsKeyFile } from '../store/connectionSealer.js';

/**
 * Runs the command with its parsed options (declared in `commands/gateway.ts`); resolves when
 * the gateway stops (stdio: the client went away).
 */
export async function gatewayCommand(options: ParsedArgs['options']): Promise<void> {
  const level = options['log-level'] ?? 'info';
  if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') throw new UsageError(`invalid --log-level ${String(level)}`);
  const format = options['log-format'] ?? process.env['SWITCHBOARD_LOG_FORMAT'] ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`invalid --log-format ${String(format)} (text or json)`);
  const lines = createLineLogger((line) => process.stderr.write(line), level, format);
  // What the gateway tells the person who started it (its URL, where its token is): always shown, in the same format.
  const announce = (line: string, level: 'info' | 'warn' = 'info', fields?: Record<string, unknown>): void => void process.stderr.write(formatLogLine(format, level, line, fields));
  // Every line passes secret redaction (until the config says otherwise: switchboard.redact).
  let logger = redactingLogger(lines);
  // V8's allocation-site pretenuring, seeing many of a busy session's per-request objects alive
  // at one young collection, allocates every later one in old space, where they die: ~18% of the
  // gateway's CPU per call and half its p99 on the 2025-11-25 session wire, nothing on the
  // stateless one (issue #35; docs/gateway-performance.md). The process is the gateway's own.
  setFlagsFromString('--no-allocation-site-pretenuring');
  // Signals are the gateway's from here on: no server outlives it (gatewayLifecycle.ts).
  const lifecycle = new GatewayLifecycle(logger);
  lifecycle.install();
  if (typeof options['telemetry'] === 'string') await loadTelemetry(options['telemetry']);
  const file = await configFileOption(options['config'], false);
  const config = await loadConfig(file);
  const secretOptions = { entropy: config.redact.entropy };
  logger = config.redact.logs ? redactingLogger(lines, secretOptions) : lines;
  for (const warning of config.warnings) logger.warn(warning);
  // Checked before any server starts, so a bad flag leaves nothing running.
  const host_ = typeof options['host'] === 'string' ? options['host'] : config.gateway.host;
  const port = portOption(options['port'], config.gateway.port);
  const noAuth = options['no-auth'] === true || config.gateway.auth.kind === 'none';
  if (options['stdio'] !== true && noAuth && !isLoopback(host_)) throw new UsageError(`--no-auth is allowed only on loopback (127.0.0.1, ::1, localhost), not on ${host_}`);
  await mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  // Where `audit`, `pins`, `consent` and `console` find this gateway without --config.
  await recordRunningGateway(file, config.stateDir).catch((error: unknown) => logger.warn(`could not record this gateway in ${userFolder()}: ${describeError(error)}`));
  const stores = openStateStores(config.stateDir);
  // Launch and config approvals are HMACs under this key (host/launchKeys.ts).
  const key = await approvalKey(config.stateDir);
  // PostgreSQL / Redis shared by several instances, when given; unreachable = the gateway does not start.
  const storeUrl = typeof options['store'] === 'string' ? options['store'] : config.store;
  const shared = await openSharedStores(storeUrl, typeof options['cache'] === 'string' ? options['cache'] : config.cache);
  for (const line of shared.described) logger.info(`shared ${line}`);
  // Opened before any server starts: a corrupt audit log stops the gateway with a clear message.
  const audit = config.audit ? (shared.audit ?? SqliteAuditLog.open(auditFile(config.stateDir), auditStoreOptions(config))) : undefined;
  // A log that no longer holds its anchored head (truncated, emptied, replaced) is not continued.
  const checkpoints =
    audit === undefined
      ? undefined
      : await anchoredAudit(config, audit, logger, shared.audit !== undefined ? storeUrl : undefined).catch(async (error: unknown) => {
          await closeStores(audit, undefined, { close: () => Promise.resolve() }, shared, logger);
          throw new CliFailure(`${describeError(error)} The gateway did not start.`);
        });
  // switchboard.audit.retention: old records archived on a timer, off the request path.
  const retention = audit === undefined ? undefined : startAuditRetention(config, logger, shared.audit !== undefined && storeUrl !== undefined ? { log: shared.audit, store: storeUrl } : undefined);
  // Over --stdio, stdin is the protocol: nobody can be asked there.
  const interactive = options['stdio'] !== true && process.stdin.isTTY === true && process.stderr.isTTY === true;
  // The web console (switchboard.console): its call metrics and the launches waiting for a person.
  const metrics = config.console ? new ConsoleMetrics() : undefined;
  const launches = config.console ? new PendingLaunches(stores.launches, process.cwd()) : undefined;
  const oauth = config.gateway.auth.kind === 'oauth' && !noAuth ? config.gateway.auth : undefined;
  const named = noAuth ? undefined : config.gateway.auth.tokens;
  const token = options['stdio'] === true || noAuth || oauth !== undefined || named !== undefined ? undefined : await gatewayToken(config.stateDir);
  let callConsent: GatewayConsent | undefined;
  // A damaged pin store stops the gateway here, before any server starts (fail closed).
  let current = config;
  // Env values count in a server's identity under this key (pins and consent grants alike).
  const identityKey = shared.identityKey ?? (await localIdentityKey(config.stateDir));
  const pins = config.pins ? await openPins(config, logger, () => current, 'The gateway did not start.', { store: shared.pins, identityKey }) : undefined;
  // Taint outlives a restart (label sources in stateDir/taint.db, written behind the calls; fingerprints stay in memory).
  // With --cache it is shared by every instance in Redis, fingerprints and their key included (docs/scaling.md).
  for (const warning of shared.taint?.warnings ?? []) logger.warn(`shared taint: ${warning}`);
  if (shared.taint === undefined && shared.pins !== undefined) logger.warn('--store without --cache: the policy\'s taint is kept per instance; behind a load balancer a session can shed it by reaching another instance (give --cache)');
  const taint =
    shared.taint !== undefined
      ? { store: shared.taint.store, fingerprints: new SecretFingerprints(shared.taint.fingerprintKey) }
      : (() => {
          const store = new PersistentTaintStore(SqliteTaintSnapshot.open(join(config.stateDir, 'taint.db')), {
            maxKeys: config.policy.maxTrackedSessions,
            onError: (error) => logger.warn(`taint could not be saved (kept in memory, retried): ${describeError(error)}`),
          });
          return { store, close: () => store.close() };
        })();
  // With --cache, MRTR single-use nonces are shared: a state consumed on one instance is a replay on every other.
  // With --store, so is the sealing key: a state sealed on one instance opens on every other.
  const requestState = { ...(shared.nonceStore !== undefined ? { nonceStore: shared.nonceStore } : {}), ...(shared.requestStateKeys !== undefined ? { keys: shared.requestStateKeys } : {}) };
  // The servers whose launch waits for a person: the gateway serves a setup notice naming them (setupNotice.ts).
  let waiting: readonly string[] = [];
  let showWaiting = (): void => undefined;
  const admit = launchConsent(options['yes'] === true, interactive, stores.launches, key, launches, announce, (ids) => {
    waiting = ids;
    showWaiting();
  });
  // servers.<id>.auth: per-user sign-ins and token exchange; connections in stateDir/connections.db
  // (or the --store database), sealed with the connections key, opened on first use.
  const connections = lazyConnectionStore(async () => {
    const opened = await openConnectionStore({ stateDir: config.stateDir, ...(shared.database !== undefined ? { store: shared.database } : {}) });
    logger.info(opened.described);
    return opened.store;
  });
  const downstreamAuth = gatewayDownstreamAuth(logger, {
    store: connections,
    ...(config.gateway.publicUrl !== undefined ? { publicUrl: config.gateway.publicUrl } : {}),
    ...(oauth?.tenantClaim !== undefined ? { tenantOf: tenantFromClaim(oauth.tenantClaim) } : {}),
  });
  const opened = await openGateway(config, {
    logger,
    authority: downstreamAuth.authority,
    transport: defaultTransportFactory({ environment: process.env, logger, auth: hostOAuthHooks(config, shared.oauthTokens) }),
    admit,
    names: stores.names,
    // The gateway's own files (config, state folder, the per-user folder, the state anchors' folder, the connections key) are off-limits to its servers.
    files: {
      platform: nodePathPlatform(config.stateDir),
      cwd: process.cwd(),
      extra: [
        { path: userFolder(), what: 'per-user folder' },
        { path: anchorDir(), what: 'state anchor folder' },
        { path: connectionsKeyFile(config.stateDir), what: 'connections key' },
        ...(config.auditRetention !== undefined ? [{ path: config.auditRetention.archiveDir, what: 'audit archive folder' }] : []),
      ],
    },
    ...(audit !== undefined ? { audit } : {}),
    ...(pins !== undefined ? { pins } : {}),
    taint,
    ...(shared.policy !== undefined ? { cluster: { store: shared.policy, instance: instanceName(), publish: options['publish-policy'] === true } } : {}),
    // Consent to calls the policy asks about (and the admin API the person answers through).
    consent: async (auditLog, live) => {
      callConsent = await gatewayConsent({ config, current: live, interactive, audit: auditLog, logger, announce, identityKey, shared: { ...(shared.grants !== undefined ? { grants: shared.grants } : {}), ...(shared.consentRequests !== undefined ? { requests: shared.consentRequests } : {}) } });
      return callConsent;
    },
    guardStores: sharedGuardStores(shared),
    ...(metrics !== undefined ? { observers: [metrics.interceptor()] } : {}),
    gateway: { server: { logger, ...(Object.keys(requestState).length > 0 ? { requestState } : {}) } },
  }).catch(async (error: unknown) => {
    await retention?.stop();
    await checkpoints?.stop();
    await closeStores(audit, pins, connections, shared, logger);
    throw error;
  });
  const { host, gateway, scanner, policy } = opened;
  const consent = callConsent as GatewayConsent;
  const auditLog = opened.audit;
  const watcher = gatewayReload({
    file,
    stateDir: config.stateDir,
    key,
    logger,
    current: () => current,
    apply: async (next) => {
      current = next;
      await opened.apply(next);
    },
    launches: stores.launches,
    ...(auditLog !== undefined ? { audit: async (entry) => void (await auditLog.append(entry)) } : {}),
    refused: (error) => void auditLog?.append(refusedReloadEntry(error, Date.now())).catch(() => undefined),
  });
  let gatewayUrl: string | undefined;
  const webConsole =
    metrics === undefined
      ? undefined
      : await gatewayConsole(config.stateDir, {
          host,
          config: () => current,
          metrics,
          gateway: { transport: options['stdio'] === true ? 'stdio' : 'http', version: SWITCHBOARD_VERSION, startedAt: Date.now(), url: () => gatewayUrl },
          consent: { queue: consent.queue, grants: consent.grants, queued: consent.queued },
          ...(pins !== undefined ? { pins } : {}),
          scanner,
          ...(audit !== undefined && auditLog !== undefined ? { audit: { log: auditLog, reader: audit } } : {}),
          ...(launches !== undefined ? { launches } : {}),
          reload: watcher.gate,
          // A person signs in with their named token (never the unnamed gateway-token) to see and revoke their own connections.
          ...(named !== undefined ? { namedTokens: named } : {}),
          // The per-user connections (the lazy store above): listed without tokens and revoked from the Connections page.
          connections: { store: connections, inUse: () => connectionStoreInUse(config.stateDir, current.servers) },
          // The running policy (it reloads with the config): the console shows and dry-runs the current rules.
          policy: {
            get config() {
              return policy.config;
            },
            get labels() {
              return policy.labels;
            },
            get installed() {
              return policy.active;
            },
            redact: (result) => redactResult(result, secretOptions),
          },
        });
  launches?.attach(
    () => opened.readmit(),
    (id) => host.health().some((h) => h.id === id),
  );
  let consoleAt: string | undefined;
  showWaiting = () => gateway.setupNotice(waiting.length === 0 ? undefined : launchApprovalSteps(waiting, { consoleUrl: consoleAt, command: `switchboard scan ${file} --yes` }));
  showWaiting();
  const shutdown = async (): Promise<void> => {
    watcher.close();
    webConsole?.api.close();
    await opened.close();
    await retention?.stop();
    await checkpoints?.stop();
    await closeStores(audit, pins, connections, shared, logger);
  };

  if (options['stdio'] === true) {
    const transport = new StdioServerTransport({ input: process.stdin, output: process.stdout, logger });
    lifecycle.closeWith(shutdown);
    const connection = await gateway.server.connect(transport);
    // The client closing stdin (EOF) is the end: every server goes, in bounded time.
    const closed = new Promise<void>((resolve) => connection.onClose(() => resolve()));
    // No HTTP port over stdio: the consent API and the console get their own loopback listener.
    const adminUrl = await consent.publish(undefined, webConsole?.api);
    if (webConsole !== undefined && adminUrl !== undefined) {
      await publishConsole(config.stateDir, adminUrl, webConsole.adminTokenFile, announce);
      consoleAt = await consoleUrl(config.stateDir).catch(() => undefined);
      showWaiting();
    }
    await closed;
    await lifecycle.stop('the client closed stdin');
    return;
  }
  lifecycle.closeWith(shutdown);

  let running: ListeningServer;
  try {
    const { serveGatewayHttp } = await import('./gatewayHttp.js');
    // With --cache, the DPoP replay cache and nonces are shared: a proof used on one instance is a replay on every other.
    // A token-exchange server needs each caller's verified token kept for the exchange (never forwarded).
    const exchangeable = config.servers.some((s) => s.options.auth?.mode === 'token-exchange');
    const oauthAuth = oauth === undefined ? undefined : { ...oauth, dpop: oauth.dpop === undefined ? undefined : { ...oauth.dpop, ...shared.dpop }, ...(exchangeable ? { exchangeable } : {}) };
    // Named tokens from the config, else the state folder's token as `default` (none with --no-auth).
    const tokens = named ?? (token !== undefined ? [{ name: 'default', sha256: tokenDigest(token.value), scopes: [] }] : undefined);
    const hint = named !== undefined ? 'a valid bearer token is required (one of gateway.auth.tokens)' : `a valid bearer token is required (see the gateway-token file in the state folder)`;
    running = await serveGatewayHttp(opened, {
      host: host_,
      port,
      path: config.gateway.path,
      logger,
      auth: { ...(tokens !== undefined ? { tokens, hint } : {}), ...(oauthAuth !== undefined ? { oauth: oauthAuth } : {}) },
      // Behind a proxy that passes the public Host on, requests name the public host too.
      allowedHosts: [...allowedHostsFor(host_), ...(config.gateway.publicUrl !== undefined ? [new URL(config.gateway.publicUrl).host] : [])],
      mounts: [...(consent.api !== undefined ? [consent.api] : []), ...(webConsole !== undefined ? [webConsole.api] : [])],
      ...(config.gateway.publicUrl !== undefined ? { publicUrl: config.gateway.publicUrl } : {}),
      personRoutes: (auth, url) => {
        downstreamAuth.setGatewayUrl(url);
        // The console's "Sign in with <issuer>" verifies with the front door's own OAuth verifier, built just now.
        webConsole?.api.signInWith(consoleOAuthSignIn(config.gateway.auth, auth.oauth, logger));
        return downstreamAuth.routes(auth, (config.gateway.publicUrl ?? url).startsWith('https:'));
      },
      ...(shared.sessions !== undefined ? { sessions: shared.sessions } : {}),
      ...(config.gateway.limits !== undefined ? { limits: config.gateway.limits } : {}),
    });
    gatewayUrl = new URL(config.gateway.path, running.url).href;
    await consent.publish(running.url);
    if (webConsole !== undefined) {
      await publishConsole(config.stateDir, running.url, webConsole.adminTokenFile, announce);
      consoleAt = await consoleUrl(config.stateDir).catch(() => undefined);
      showWaiting();
    }
  } catch (error) {
    // The servers are running: stop them, or the process would outlive its failure.
    await shutdown();
    throw error;
  }
  lifecycle.closeWith(() => shutdown().then(() => running.close()));
  const url = new URL(config.gateway.path, running.url).href;
  const count = host.serverIds.length;
  announce(`Switchboard gateway: ${url} (${counted(count, 'server')})`);
  if (noAuth) announce('WARNING: --no-auth: any local process can use this gateway without a token.');
  else if (oauth !== undefined) announce(`OAuth: access tokens from ${oauth.issuer} for audience ${oauth.audience}`);
  else if (named !== undefined) announce(`Bearer tokens: ${named.map((t) => t.name).join(', ')} (gateway.auth.tokens)`);
  else if (token?.created === true) announce(`Bearer token (shown once; stored in ${token.file}):\n  ${token.value}`);
  else announce(`Bearer token: in ${token?.file}`);
}

/** The servers of a config that may start: enabled, and for stdio servers an approved launch. */
function launchConsent(
  yes: boolean,
  interactive: boolean,
  store: LaunchApprovalStore,
  key: string,
  pending: PendingLaunches | undefined,
  announce: (line: string, level: 'warn', fields: { server: string }) => void,
  waiting: (ids: readonly string[]) => void,
): (config: HostConfig) => Promise<ServerConfig[]> {
  return async (config) => {
    const refused: string[] = [];
    const admitted = await admitLaunches(config, {
      store,
      key,
      yes,
      ...(interactive ? { prompt: askYesNo } : {}),
      // Servers without a cwd start in the gateway's: the prompt and the refusal name it.
      inheritedCwd: process.cwd(),
      refused: (server, error) => {
        // The console's review page can approve it (then the config is applied again).
        if (error instanceof LaunchNotApprovedError) {
          pending?.note(server, error);
          refused.push(server.id);
        }
        // Shown whatever --log-level says: the person must learn why a server does not start.
        announce(error instanceof Error ? error.message : String(error), 'warn', { server: server.id });
      },
      admitted: (server) => pending?.clear(server.id),
      warned: printLaunchFindings,
    });
    waiting(refused);
    return admitted;
  };
}

/** Closes the stores the command opened (after the gateway closed): the audit log, the pins, the per-user connections, the shared connections. */
async function closeStores(audit: { close(): Promise<void> } | undefined, pins: { store: { close?(): Promise<void> | void } } | undefined, connections: { close(): Promise<void> }, shared: { close(): Promise<void> }, logger: Logger): Promise<void> {
  await audit?.close().catch((error: unknown) => logger.error(`audit log: ${describeError(error)}`));
  await pins?.store.close?.();
  await connections.close().catch((error: unknown) => logger.error(`connections: ${describeError(error)}`));
  await shared.close();
}

/** The gateway's bearer token: `<stateDir>/gateway-token`, generated on first use (mode 0600). */
function gatewayToken(stateDir: string): Promise<StateSecret> {
  return stateSecret(stateDir, 'gateway-token');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
