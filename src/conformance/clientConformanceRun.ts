/**
 * The conformance fixture's run: reading what the referee hands over (server URL, scenario,
 * revision, context), choosing the client's versions and era for the revision, and running
 * one scenario with an {@link McpClient} over {@link StreamableHttpClientTransport} (with
 * OAuth for `auth/*`). The entry point is `conformanceClient.ts`.
 *
 * @module
 */
import { McpClient } from '../client/mcpClient.js';
import type { Era } from '../client/types.js';
import { isStateless, isSupportedRevision, supportedRevisions, type ProtocolRevision } from '../protocol/revisions.js';
import { StreamableHttpClientTransport } from '../transport/http/client/client.js';
import type { StreamableHttpClientOptions } from '../transport/http/client/clientOptions.js';
import type { Logger } from '../util/logger.js';
import { SWITCHBOARD_VERSION } from '../util/version.js';
import { conformanceOAuthProvider, type ConformanceContext } from './clientConformanceAuth.js';
import { acceptElicitation, scenarioSteps } from './clientConformanceScenarios.js';
import { oauthTransportHooks } from '../adapters/hostOAuth.js';

/** What the referee hands the fixture. */
export interface ConformanceRun {
  readonly serverUrl: string;
  readonly scenario: string;
  readonly revision: ProtocolRevision;
  readonly context: ConformanceContext;
}

/** Reads the run from argv (the URL is the last argument) and the environment. */
export function readRun(argv: readonly string[], env: NodeJS.ProcessEnv): ConformanceRun {
  const serverUrl = argv[argv.length - 1];
  if (serverUrl === undefined || !/^https?:\/\//.test(serverUrl)) throw new Error('usage: conformanceClient <serverUrl> (the URL is the last argument)');
  const scenario = env['MCP_CONFORMANCE_SCENARIO'] ?? '';
  const wanted = env['MCP_CONFORMANCE_PROTOCOL_VERSION'] ?? '2026-07-28';
  if (!isSupportedRevision(wanted)) throw new Error(`unsupported MCP_CONFORMANCE_PROTOCOL_VERSION ${wanted}`);
  let context: ConformanceContext = {};
  const raw = env['MCP_CONFORMANCE_CONTEXT'];
  if (raw !== undefined && raw !== '') {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) context = parsed as ConformanceContext;
  }
  return { serverUrl, scenario, revision: wanted, context };
}

/** The revisions (preferred first) and era the client speaks in a run at `revision`. */
export function versionsFor(revision: ProtocolRevision): { versions: ProtocolRevision[]; era: Era } {
  if (isStateless(revision)) return { versions: [revision], era: 'stateless' };
  // A stateful run offers `revision` and accepts any older stateful answer (sse-retry answers 2025-03-26).
  return { versions: supportedRevisions.filter((v) => !isStateless(v) && v <= revision).reverse(), era: 'stateful' };
}

/** Runs one scenario; resolves on success, rejects on failure. */
export async function runScenario(run: ConformanceRun, logger: Logger): Promise<void> {
  const { versions, era } = versionsFor(run.revision);
  const client = new McpClient(
    { name: 'switchboard-conformance-client', version: SWITCHBOARD_VERSION },
    {
      versions,
      era,
      logger,
      defaultTimeoutMs: 25_000,
      probeTimeoutMs: 25_000,
      handlers: {
        elicitation: (params) => acceptElicitation(params),
        sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'switchboard-conformance' }),
        roots: () => [{ uri: 'file:///tmp', name: 'tmp' }],
      },
    },
  );
  let transportOptions: StreamableHttpClientOptions = { url: run.serverUrl, logger };
  if (run.scenario.startsWith('auth/')) {
    const provider = await conformanceOAuthProvider(run.scenario, run.serverUrl, run.context);
    transportOptions = { ...transportOptions, ...oauthTransportHooks(provider) };
  }
  await client.connect(new StreamableHttpClientTransport(transportOptions));
  try {
    await scenarioSteps(run.scenario)(client, run.context, logger);
  } finally {
    await client.close().catch(() => undefined);
  }
}

