/**
 * `switchboard gateway`: runs the host on a `switchboard.json` and serves its guarded view
 * as one MCP server, over Streamable HTTP (both eras on one endpoint) or stdio. The HTTP side
 * needs a bearer token by default (generated on first run under the state folder, mode 0600,
 * printed once); `--no-auth` is allowed on loopback only. `/healthz` answers while the process
 * runs, `/readyz` once every enabled server was tried and at least one is ready.
 *
 * Before a stdio server is first started, or after its launch changed, the exact command,
 * arguments, working directory and environment variable names need consent: a prompt in a
 * TTY, `--yes` for this run, or `approvedLaunches` in the config. Without any of these the
 * server is not started and the message says how to approve; the others still run.
 *
 * The config file is watched: servers added, removed or changed are applied without a
 * restart; a config that no longer parses is reported and the running one kept.
 *
 * @module
 */
import { watch, type FSWatcher } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import type { HostConfig, ServerConfig } from '../host/configTypes.js';
import { Gateway, GATEWAY_CLIENT_CAPABILITIES } from '../host/gateway.js';
import { Host } from '../host/host.js';
import { Scanner } from '../host/scanner/scanner.js';
import { checkLaunch, LaunchNotApprovedError, launchSpecOf, type LaunchApprovalStore } from '../host/launchConsent.js';
import { defaultTransportFactory } from '../adapters/hostTransports.js';
import { auditInterceptor } from '../host/audit.js';
import { guardInterceptor } from '../host/guards.js';
import { sanitizeInterceptor, redactResult } from '../host/sanitize/sanitize.js';
import { sanitizeRequestInterceptor } from '../host/sanitize/sanitizeRequests.js';
import { findSecretValues } from '../host/secrets/findSecrets.js';
import { redactingAuditLog, redactingLogger } from '../host/secrets/redact.js';
import { emittingAuditLog } from '../host/auditTelemetry.js';
import { loadTelemetry } from './telemetrySetup.js';
import { serverLabelsOf } from '../host/configPolicy.js';
import { describePolicyChange, policyChangeEntry, refusedReloadEntry, ReloadablePolicy } from '../host/policy/policyReload.js';
import { PersistentTaintStore } from '../host/policy/taintPersistence.js';
import { SecretFingerprints } from '../host/policy/valueTaint.js';
import { hostOAuthHooks, loadConfig, openPins } from './hostSetup.js';
import { openStateStores } from '../store/jsonFileStore.js';
import { SqliteAuditLog } from '../store/sqliteAudit.js';
import { SqliteTaintSnapshot } from '../store/sqliteTaintStore.js';
import { auditFile, auditStoreOptions } from './auditCommand.js';
import { instanceName, openSharedStores, sharedGuardStores } from './sharedStores.js';
import { ClusterPolicy } from '../host/clusterPolicy.js';
import type { AuditEntry } from '../host/audit.js';
import { StdioServerTransport } from '../transport/stdio/server.js';
import type { ListeningServer } from '../adapters/nodeHttp.js';
import { describeError } from '../util/errors.js';
import { createLineLogger, type Logger } from '../util/logger.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { parseArgs, portOption, UsageError } from './args.js';
import { stateSecret, type StateSecret } from './stateSecret.js';
import { gatewayConsent } from './gatewayConsent.js';
import { ConsoleMetrics } from '../console/consoleMetrics.js';
import { gatewayConsole, PendingLaunches, publishConsole } from './gatewayConsole.js';

/** Help text of the command. */
export const gatewayHelp = `Usage: switchboard gateway [--config FILE] [--port N] [--host H] [--stdio] [--yes] [--no-auth] [--telemetry FILE]

Runs the host on a switchboard.json and serves every configured MCP server behind one
guarded endpoint (namespaced tools, prompts, resources; the interceptor chain).

  --config FILE   the config (default ./switchboard.json)
  --port N        HTTP port (default: the config's gateway.port, 8765; 0 = a free one)
  --host H        interface to bind (default: the config's gateway.host, 127.0.0.1)
  --stdio         serve one client over stdin/stdout instead of HTTP
  --yes           approve every stdio server's launch for this run (recorded)
  --no-auth       serve HTTP without a bearer token (loopback only)
  --log-level L   debug | info | warn | error (default info; logs go to stderr)
  --telemetry F   import the ES module F first: it registers an OpenTelemetry SDK
                  (spans, metrics, and audit records as log records when it registers a
                  LoggerProvider); without one, telemetry is a no-op
  --store URL     postgres://...: pins, the audit log, consent approvals and queue, and
                  downstream OAuth tokens in PostgreSQL, shared by several instances
                  (default: the config's switchboard.store, else SQLite and files)
  --publish-policy  with --store: publish this config's policy to the cluster at start
                  (otherwise an instance runs the cluster's newest policy, and publishes
                  its own only when its config's policy changes while it runs)
  --cache URL     redis://...: rate limits, concurrency caps and the policy's taint in
                  Redis, shared by several instances (default: the config's
                  switchboard.cache, else memory); also the DPoP replay cache and nonces
                  (gateway.auth.oauth.dpop)

State (the bearer token, name assignments, launch approvals, OAuth tokens of remote
servers, the pins in pins.db, the audit log in audit.db unless switchboard.audit is
false, the consent admin token and kept approvals in consent.db) lives in the config's stateDir
(default .switchboard next to the config).
A remote server with an "oauth" section needs a sign-in first: switchboard login <server>.
With gateway.auth { "oauth": … } clients need access tokens from that issuer instead.
Every server's definitions are pinned on first use; a changed one is quarantined until you
approve it with \`switchboard pins approve\` (see \`switchboard pins --help\`).
A call that needs a person's consent (switchboard.consent) is asked on this terminal (when it
is one) and queued for the admin API under /consent/ (admin token in <stateDir>/admin-token;
over --stdio the API gets its own loopback port, written to <stateDir>/consent-url); answer
with \`switchboard consent list|approve|deny\`.
`;

/** Runs the command; resolves when the gateway stops (stdio: the client went away). */
export async function gatewayCommand(argv: readonly string[]): Promise<void> {
  const { options, positionals } = parseArgs(argv, {
    config: 'string',
    port: 'string',
    host: 'string',
    stdio: 'boolean',
    yes: 'boolean',
    'no-auth': 'boolean',
    'log-level': 'string',
    telemetry: 'string',
    store: 'string',
    cache: 'string',
    'publish-policy': 'boolean',
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const level = options['log-level'] ?? 'info';
  if (level !== 'debug' && level !== 'info' && level !== 'warn' && level !== 'error') throw new UsageError(`invalid --log-level ${String(level)}`);
  const lines = createLineLogger((line) => process.stderr.write(line), level);
  // Every line passes secret redaction (until the config says otherwise: switchboard.redact).
  let logger = redactingLogger(lines);
  if (typeof options['telemetry'] === 'string') await loadTelemetry(options['telemetry']);
  const file = resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json');
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
  const stores = openStateStores(config.stateDir);
  // PostgreSQL / Redis shared by several instances, when given; unreachable = the gateway does not start.
  const shared = await openSharedStores(typeof options['store'] === 'string' ? options['store'] : config.store, typeof options['cache'] === 'string' ? options['cache'] : config.cache);
  for (const line of shared.described) logger.info(`shared ${line}`);
  // Opened before any server starts: a corrupt audit log stops the gateway with a clear message.
  // `switchboard.audit: false` is the operator's choice to keep no trail; said once at start.
  const audit = config.audit ? (shared.audit ?? SqliteAuditLog.open(auditFile(config.stateDir), auditStoreOptions(config))) : undefined;
  if (audit === undefined) logger.warn('switchboard.audit is false: requests are not recorded in the audit log (no trail of who called what, denials included)');
  // What reaches the log (requests and approvals alike) passes secret redaction first.
  const redacted = audit === undefined || !config.redact.audit ? audit : redactingAuditLog(audit, secretOptions);
  // With a logger provider registered (--telemetry), each durable record is also an OTel log record (the redacted one).
  const auditLog = redacted === undefined ? undefined : emittingAuditLog(redacted, { onError: (message) => logger.warn(message) });
  // Over --stdio, stdin is the protocol: nobody can be asked there.
  const interactive = options['stdio'] !== true && process.stdin.isTTY === true && process.stderr.isTTY === true;
  // The web console (switchboard.console): its call metrics and the launches waiting for a person.
  const metrics = config.console ? new ConsoleMetrics() : undefined;
  const launches = config.console ? new PendingLaunches(stores.launches) : undefined;
  const consent = consentFor(options['yes'] === true, interactive, stores.launches, config, launches);
  let current = config;
  const oauth = config.gateway.auth.kind === 'oauth' && !noAuth ? config.gateway.auth : undefined;
  const token = options['stdio'] === true || noAuth || oauth !== undefined ? undefined : await gatewayToken(config.stateDir);
  // Consent to calls the policy asks about (and the admin API the person answers through).
  const callConsent = await gatewayConsent({ config, current: () => current, interactive, audit: auditLog, logger, shared: { ...(shared.grants !== undefined ? { grants: shared.grants } : {}), ...(shared.consentRequests !== undefined ? { requests: shared.consentRequests } : {}) } });
  // The poisoning scanner (trust phase): per-server mode from the config, read live so a reload applies.
  const scanner = new Scanner({
    modeOf: (id) => current.servers.find((s) => s.id === id)?.options.scan,
    onReport: (id, r) => logger.warn(`scanner: ${r.kind} ${id}/${r.item}: ${r.verdict} (${r.findings.map((f) => f.rule).join(', ')})`),
  });
  // A damaged pin store stops the gateway here, before any server starts (fail closed).
  const pins = config.pins ? await openPins(config, logger, () => current, 'The gateway did not start.', shared.pins) : undefined;
  // The policy engine (rules compiled at load, labels, taint), reloaded with the config (taint kept).
  // With no rule and every built-in off it has nothing to decide and passes requests straight on.
  // Taint outlives a restart (label sources in stateDir/taint.db, written behind the calls; fingerprints stay in memory).
  // With --cache it is shared by every instance in Redis, fingerprints and their key included (docs/scaling.md).
  const taint =
    shared.taint === undefined
      ? new PersistentTaintStore(SqliteTaintSnapshot.open(join(config.stateDir, 'taint.db')), {
          maxKeys: config.policy.maxTrackedSessions,
          onError: (error) => logger.warn(`taint could not be saved (kept in memory, retried): ${describeError(error)}`),
        })
      : undefined;
  for (const warning of shared.taint?.warnings ?? []) logger.warn(`shared taint: ${warning}`);
  if (shared.taint === undefined && shared.pins !== undefined) logger.warn('--store without --cache: the policy\'s taint is kept per instance; behind a load balancer a session can shed it by reaching another instance (give --cache)');
  const policy = new ReloadablePolicy(
    {
      // An `ask` goes to the consent interceptor below (which fails closed when nobody answers).
      canAsk: true,
      // Value taint: the secrets the sanitize layer's rules find in results, fingerprinted.
      detectSecrets: (text) => findSecretValues(text, secretOptions),
      redact: (result) => redactResult(result, secretOptions),
      findingsOf: (definition) => scanner.verdictOf(definition)?.findings,
      ...(shared.taint !== undefined ? { store: shared.taint.store, fingerprints: new SecretFingerprints(shared.taint.fingerprintKey) } : taint !== undefined ? { store: taint } : {}),
    },
    config.policy,
    serverLabelsOf(config.servers),
  );
  // With --store, one versioned policy for the cluster: a stale file never rolls it back (docs/scaling.md).
  const cluster =
    shared.policy === undefined
      ? undefined
      : new ClusterPolicy(shared.policy, policy, {
          instance: instanceName(),
          warn: (line) => logger.warn(line),
          ...(auditLog !== undefined ? { audit: async (entry: AuditEntry) => void (await auditLog.append(entry)) } : {}),
        });
  await cluster?.start(config.policy, serverLabelsOf(config.servers), options['publish-policy'] === true);
  const host = await Host.open({
    servers: await consent(config.servers),
    namespacing: config.namespacing,
    separator: config.separator,
    nameStore: stores.names,
    transport: defaultTransportFactory({ environment: process.env, logger, auth: hostOAuthHooks(config, shared.oauthTokens) }),
    logger,
    clientInfo: { name: 'switchboard-gateway', version: SWITCHBOARD_VERSION },
    capabilities: GATEWAY_CLIENT_CAPABILITIES,
    // Phases order them: audit (outermost), trust (pins, scanner), policy, consent, guard (innermost: the sanitiser last, first on the result).
    ...(pins !== undefined ? { trust: pins.trust } : {}),
    interceptors: [
      ...(metrics !== undefined ? [metrics.interceptor()] : []),
      ...(auditLog !== undefined ? [auditInterceptor(auditLog)] : []),
      ...(pins !== undefined ? [pins.trust.interceptor()] : []),
      scanner.interceptor,
      policy.interceptor,
      callConsent.interceptor,
      ...(config.guards !== undefined ? [guardInterceptor({ ...config.guards, ...sharedGuardStores(shared) })] : []),
      ...(config.sanitize.mode !== 'off' ? [sanitizeInterceptor(config.sanitize), sanitizeRequestInterceptor(config.sanitize)] : []),
    ],
  });
  // `switchboard pins approve|reject` in another process or another instance: reload and vet every server's lists again.
  const unwatchPins = pins?.store.watch?.(() => void pins.trust.reload().then(() => host.refreshTrust()));
  await host.start();
  for (const h of host.health()) {
    if (h.state !== 'ready') logger.warn(`server ${h.id} is not ready: ${h.problem ?? h.lastError ?? h.state}`);
    else if (h.problem !== undefined) logger.warn(`server ${h.id}: ${h.problem}`);
  }
  // With --cache, MRTR single-use nonces are shared: a state consumed on one instance is a replay on every other.
  // With --store, so is the sealing key: a state sealed on one instance opens on every other.
  const requestState = { ...(shared.nonceStore !== undefined ? { nonceStore: shared.nonceStore } : {}), ...(shared.requestStateKeys !== undefined ? { keys: shared.requestStateKeys } : {}) };
  const gateway = new Gateway(host, { exposure: config.exposure, server: { logger, ...(Object.keys(requestState).length > 0 ? { requestState } : {}) }, filters: [scanner] });
  const watcher = watchConfig(file, logger, async (next) => {
    current = next;
    await host.reconcile(await consentFor(options['yes'] === true, interactive, stores.launches, next, launches)(next.servers));
    // Atomic: the new rules were compiled by loadConfig; a config that fails to compile never gets here.
    if (cluster !== undefined) return cluster.fileChanged(next.policy, serverLabelsOf(next.servers));
    const change = policy.reload(next.policy, serverLabelsOf(next.servers));
    if (change !== undefined) {
      logger.warn(describePolicyChange(change));
      await auditLog?.append(policyChangeEntry(change, Date.now())).catch((error: unknown) => logger.error(`the policy change could not be audited: ${describeError(error)}`));
    }
  }, (error) => void auditLog?.append(refusedReloadEntry(error, Date.now())).catch(() => undefined));
  let gatewayUrl: string | undefined;
  const webConsole =
    metrics === undefined
      ? undefined
      : await gatewayConsole(config.stateDir, {
          host,
          config: () => current,
          metrics,
          gateway: { transport: options['stdio'] === true ? 'stdio' : 'http', version: SWITCHBOARD_VERSION, startedAt: Date.now(), url: () => gatewayUrl },
          ...(host_ !== '0.0.0.0' && host_ !== '::' ? { allowedHosts: ['localhost', '127.0.0.1', '[::1]', host_] } : {}),
          consent: { queue: callConsent.queue, grants: callConsent.grants, queued: callConsent.queued },
          ...(pins !== undefined ? { pins } : {}),
          scanner,
          ...(audit !== undefined && auditLog !== undefined ? { audit: { log: auditLog, reader: audit } } : {}),
          ...(launches !== undefined ? { launches } : {}),
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
    async () => host.reconcile(await consentFor(options['yes'] === true, interactive, stores.launches, current, launches)(current.servers)),
    (id) => host.health().some((h) => h.id === id),
  );
  const shutdown = async (): Promise<void> => {
    watcher?.close();
    unwatchPins?.();
    cluster?.stop();
    webConsole?.api.close();
    await gateway.close();
    await callConsent.close();
    try {
      taint?.close();
    } catch (error) {
      logger.error(`taint store: ${describeError(error)}`);
    }
    await host.close();
    await audit?.close().catch((error: unknown) => logger.error(`audit log: ${describeError(error)}`));
    await pins?.store.close?.();
    await shared.close();
  };

  if (options['stdio'] === true) {
    const transport = new StdioServerTransport({ input: process.stdin, output: process.stdout, logger });
    const connection = await gateway.server.connect(transport);
    // No HTTP port over stdio: the consent API and the console get their own loopback listener.
    const adminUrl = await callConsent.publish(undefined, webConsole?.api);
    if (webConsole !== undefined && adminUrl !== undefined) await publishConsole(config.stateDir, adminUrl, webConsole.adminTokenFile);
    await new Promise<void>((resolve) => connection.onClose(() => resolve()));
    await shutdown();
    return;
  }

  let running: ListeningServer;
  try {
    const { serveGatewayHttp } = await import('./gatewayHttp.js');
    // With --cache, the DPoP replay cache and nonces are shared: a proof used on one instance is a replay on every other.
    const oauthAuth = oauth === undefined ? undefined : { ...oauth, dpop: oauth.dpop === undefined ? undefined : { ...oauth.dpop, ...shared.dpop } };
    const auth = oauthAuth !== undefined ? oauthAuth : token !== undefined ? { kind: 'token' as const, token: token.value } : { kind: 'none' as const };
    running = await serveGatewayHttp(gateway, host, {
      host: host_,
      port,
      path: config.gateway.path,
      logger,
      auth,
      ...(callConsent.api !== undefined ? { consent: callConsent.api } : {}),
      ...(webConsole !== undefined ? { console: webConsole.api } : {}),
      ...(shared.sessions !== undefined ? { sessions: shared.sessions } : {}),
    });
    gatewayUrl = new URL(config.gateway.path, running.url).href;
    await callConsent.publish(running.url);
    if (webConsole !== undefined) await publishConsole(config.stateDir, running.url, webConsole.adminTokenFile);
  } catch (error) {
    // The servers are running: stop them, or the process would outlive its failure.
    await shutdown();
    throw error;
  }
  const url = new URL(config.gateway.path, running.url).href;
  process.stderr.write(`Switchboard gateway: ${url} (${host.serverIds.length} servers)\n`);
  if (noAuth) process.stderr.write('WARNING: --no-auth: any local process can use this gateway without a token.\n');
  else if (oauth !== undefined) process.stderr.write(`OAuth: access tokens from ${oauth.issuer} for audience ${oauth.audience}\n`);
  else if (token?.created === true) process.stderr.write(`Bearer token (shown once; stored in ${token.file}):\n  ${token.value}\n`);
  else process.stderr.write(`Bearer token: in ${token?.file}\n`);
  const stop = (): void => {
    void shutdown()
      .then(() => running.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The servers that may start: enabled, and for stdio servers an approved launch. */
function consentFor(yes: boolean, interactive: boolean, store: LaunchApprovalStore, config: HostConfig, pending?: PendingLaunches): (servers: readonly ServerConfig[]) => Promise<ServerConfig[]> {
  return async (servers) => {
    const allowed: ServerConfig[] = [];
    for (const server of servers) {
      if (server.disabled) continue;
      const spec = launchSpecOf(server);
      if (spec !== undefined) {
        try {
          await checkLaunch({
            serverId: server.id,
            spec,
            configApproved: config.approvedLaunches[server.id],
            store,
            yes,
            ...(interactive ? { prompt: askYesNo } : {}),
          });
        } catch (error) {
          // The console's review page can approve it (then the config is applied again).
          if (error instanceof LaunchNotApprovedError) pending?.note(server, error);
          process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
          continue;
        }
      }
      pending?.clear(server.id);
      allowed.push(server);
    }
    return allowed;
  };
}

async function askYesNo(text: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${text} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** The gateway's bearer token: `<stateDir>/gateway-token`, generated on first use (mode 0600). */
function gatewayToken(stateDir: string): Promise<StateSecret> {
  return stateSecret(stateDir, 'gateway-token');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Re-reads the config when it changes; a broken config is reported and the running one kept. */
function watchConfig(file: string, logger: Logger, apply: (config: HostConfig) => Promise<void>, refused: (error: string) => void = () => undefined): FSWatcher | undefined {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain = Promise.resolve();
  const reload = (): void => {
    chain = chain.then(async () => {
      try {
        const next = await loadConfig(file);
        await apply(next);
        logger.info('config reloaded', { file, servers: next.servers.length });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        logger.error(`config not reloaded, the running one is kept: ${message}`);
        refused(message);
      }
    });
  };
  try {
    // The folder, not the file: editors replace a file by renaming a new one over it.
    return watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(reload, 100);
    });
  } catch (error) {
    logger.warn(`cannot watch ${file}; restart to apply changes`, { error: String(error) });
    return undefined;
  }
}
