/**
 * Consent in `switchboard gateway`: the `consent` interceptor with the providers the config
 * lists (`switchboard.consent`), the queue and its admin HTTP API, and the admin token.
 *
 * - The admin token lives in `<stateDir>/admin-token` (mode 0600), apart from the MCP bearer
 *   token, which the API refuses by name.
 * - Over HTTP the API is served on the gateway's own port under `/consent/`. Over `--stdio`
 *   (no HTTP port) it gets its own listener on the gateway host (loopback by default) and a
 *   free port. Either way its base URL is written to `<stateDir>/consent-url`, which
 *   `switchboard consent` reads.
 * - Answers are audited as `approval` records in the gateway's audit log.
 * - Widened approvals are kept in `<stateDir>/consent.db` (`SqliteGrantStore`); a damaged file
 *   stops the gateway with a clear message. With `--store postgres://…` the approvals and the
 *   queue itself are in PostgreSQL, shared by every instance: a request waiting on one is
 *   listed and answered through any other.
 *
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { AuditLog } from '../host/audit.js';
import type { HostConfig } from '../host/configTypes.js';
import { ConsentHttpApi } from '../host/consent/consentHttpApi.js';
import { consentInterceptor } from '../host/consent/consentInterceptor.js';
import { globMatches, type ConsentGrantStore } from '../host/consent/consentGrants.js';
import { ConsentQueue } from '../host/consent/consentQueue.js';
import type { ConsentProvider } from '../host/consent/consentTypes.js';
import { elicitationProvider } from '../host/consent/elicitationProvider.js';
import { webhookProvider } from '../host/consent/webhookProvider.js';
import { WebhookSigner } from '../host/consent/webhookSignature.js';
import type { Interceptor } from '../host/interceptors.js';
import { serverIdentity } from '../host/pins/serverIdentity.js';
import { listen, type ListeningServer } from '../adapters/nodeHttp.js';
import { allowedHostsFor, createAdminDoor } from '../host/frontDoor.js';
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';
import type { Logger } from '../util/logger.js';
import { openGrantStore } from '../store/sqliteGrantStore.js';
import type { SharedConsentRequests } from '../host/consent/sharedConsent.js';
import { describeError } from '../util/errors.js';
import { CliFailure } from './args.js';
import { terminalConsentProvider } from './consentTerminal.js';
import { readStateSecret, stateSecret } from './stateSecret.js';

/** The file with the consent API's base URL. */
export const CONSENT_URL_FILE = 'consent-url';
/** The file with the admin token. */
export const ADMIN_TOKEN_FILE = 'admin-token';

/** Another admin handler served next to the consent API (the web console). */
export interface AdminHandler {
  owns(path: string): boolean;
  handle(request: HttpRequestLike): Promise<HttpResponseLike | undefined>;
}

/** What the gateway needs of consent. */
export interface GatewayConsent {
  readonly interceptor: Interceptor;
  /** The admin HTTP API (when the queue or the webhook is configured). */
  readonly api: ConsentHttpApi | undefined;
  /** The queue people answer through (the API, the console), and the kept approvals. */
  readonly queue: ConsentQueue;
  readonly grants: ConsentGrantStore;
  /** Whether the queue is one of the configured providers (otherwise nothing ever waits in it). */
  readonly queued: boolean;
  /**
   * Writes `consent-url`; over stdio (`baseUrl` undefined) first starts the loopback admin
   * listener, which also serves `extra` (the console). Resolves with the admin base URL, if any.
   */
  publish(baseUrl: string | undefined, extra?: AdminHandler): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Builds consent for a gateway on `config`; `current` reads the live config (reloads). */
export async function gatewayConsent(options: {
  readonly config: HostConfig;
  readonly current: () => HostConfig;
  readonly interactive: boolean;
  /** The gateway's audit log; absent when `switchboard.audit` is false (answers are then not recorded). */
  readonly audit: AuditLog | undefined;
  readonly logger: Logger;
  /** Tells the person who started the gateway a line (where the consent API is), in the gateway's log format; stderr as is by default. */
  readonly announce?: (line: string) => void;
  /** The key env values count under in server identities (grants are kept per identity, as pins are). */
  readonly identityKey?: Uint8Array;
  /** The kept approvals and the queue's requests shared by several instances (PostgreSQL). */
  readonly shared?: { readonly grants?: ConsentGrantStore & { close(): Promise<void> }; readonly requests?: SharedConsentRequests };
}): Promise<GatewayConsent> {
  const { config } = options;
  const settings = config.consent;
  const sharedRequests = options.shared?.requests;
  const queue = new ConsentQueue({ ...(sharedRequests !== undefined ? { shared: sharedRequests, onSharedError: (error) => options.logger.warn(`consent queue: ${describeError(error)}`) } : {}) });
  let grants: ConsentGrantStore & { close(): Promise<void> };
  try {
    grants = options.shared?.grants ?? openGrantStore(config.stateDir);
  } catch (error) {
    throw new CliFailure(`${error instanceof Error ? error.message : String(error)} The gateway did not start.`);
  }
  const signer = settings.webhook === undefined ? undefined : new WebhookSigner(settings.webhook.secret, { replayWindowMs: settings.webhook.replayWindowMs });
  const providers: ConsentProvider[] = [];
  for (const name of settings.providers) {
    if (name === 'terminal' && options.interactive) providers.push(terminalConsentProvider({ input: process.stdin, output: process.stderr }));
    if (name === 'queue') providers.push(queue);
    if (name === 'elicitation') providers.push(elicitationProvider());
    if (name === 'webhook' && settings.webhook !== undefined && signer !== undefined) {
      providers.push(webhookProvider({ url: settings.webhook.url, signer, timeoutMs: settings.webhook.timeoutMs, queue }));
    }
  }
  const served = settings.providers.includes('queue') || settings.providers.includes('webhook');
  let api: ConsentHttpApi | undefined;
  if (served) {
    const admin = await stateSecret(config.stateDir, ADMIN_TOKEN_FILE);
    const mcpToken = await readStateSecret(config.stateDir, 'gateway-token');
    api = new ConsentHttpApi({ queue, grants, adminToken: admin.value, ...(mcpToken !== undefined ? { mcpToken } : {}), ...(signer !== undefined ? { webhook: signer } : {}) });
  }
  const interceptor = consentInterceptor({
    providers,
    grants,
    timeoutMs: settings.timeoutMs,
    identityOf: (id) => {
      const spec = options.current().servers.find((s) => s.id === id);
      return spec === undefined ? undefined : serverIdentity(spec, options.identityKey);
    },
    ...(options.audit !== undefined ? { audit: async (entry: Parameters<AuditLog['append']>[0]): Promise<void> => void (await (options.audit as AuditLog).append(entry)) } : {}),
    alwaysAsk: (ctx) => {
      const name = ctx.params['name'];
      if (ctx.method !== 'tools/call' || ctx.server === undefined || typeof name !== 'string') return undefined;
      const target = `${ctx.server.id}/${name}`;
      const rule = options.current().consent.ask.find((glob) => globMatches(glob, target));
      return rule === undefined ? undefined : [`the config asks for a person's consent on every call of ${rule}`];
    },
  });
  let own: ListeningServer | undefined;
  return {
    interceptor,
    api,
    queue,
    grants,
    queued: settings.providers.includes('queue'),
    async publish(baseUrl, extra) {
      if (api === undefined && extra === undefined) return undefined;
      let url = baseUrl;
      if (url === undefined) {
        const handler = apiOnly(api, extra, config.gateway.host);
        own = await listen(handler, { host: config.gateway.host, port: 0, logger: options.logger });
        url = own.url;
      }
      if (api === undefined) return url;
      await writeFile(resolvePath(config.stateDir, CONSENT_URL_FILE), `${url}\n`, { mode: 0o600 });
      (options.announce ?? ((line: string) => void process.stderr.write(`${line}\n`)))(`Consent API: ${new URL('consent/requests', url).href} (admin token in ${resolvePath(config.stateDir, ADMIN_TOKEN_FILE)})`);
      return url;
    },
    async close() {
      queue.close();
      api?.close();
      await own?.close();
      await grants.close();
    },
  };
}

/** A handler serving only the admin side: the consent API and the console (for a gateway on stdio), behind the front door's Host/Origin policy. */
function apiOnly(api: ConsentHttpApi | undefined, extra: AdminHandler | undefined, bindHost: string): Parameters<typeof listen>[0] {
  return createAdminDoor({ mounts: [...(extra !== undefined ? [extra] : []), ...(api !== undefined ? [api] : [])], allowedHosts: allowedHostsFor(bindHost) });
}
