/**
 * `GET /console/api/overview` and `GET /console/api/tools`: what the gateway runs and
 * exposes, as plain JSON for the page. Every string in here that came from a server is
 * untrusted text; the page renders it as text only.
 *
 * @module
 */
import { itemKey } from '../host/pins/pinDigests.js';
import { serverIdentity } from '../host/pins/serverIdentity.js';
import type { ServerPins } from '../host/pins/pinStore.js';
import { LabelResolver } from '../host/policy/labels.js';
import { BUCKET_MS, BUCKETS, type MetricsBucket } from './consoleMetrics.js';
import type { ConsoleOptions } from './consoleTypes.js';

/** The overview's JSON. */
export function overview(o: ConsoleOptions): Record<string, unknown> {
  const { host } = o;
  const series: Record<string, MetricsBucket[]> = {};
  const servers = host.health().map((h) => {
    const downstream = host.server(h.id);
    const client = downstream?.client;
    const info = client?.serverInfo;
    series[h.id] = o.metrics.series(h.id);
    return {
      id: h.id,
      state: h.state,
      transport: downstream?.spec.launch.kind ?? null,
      era: client?.era ?? null,
      protocolVersion: client?.protocolVersion ?? null,
      serverInfo: info === undefined ? null : { name: info.name, version: info.version },
      counts: counts(o, h.id),
      restarts: h.restarts,
      failures: h.failures,
      crashLooping: h.crashLooping,
      ...(h.lastError !== undefined ? { lastError: h.lastError } : {}),
      ...(h.problem !== undefined ? { problem: h.problem } : {}),
      recentErrors: o.metrics.recentErrors(h.id),
    };
  });
  const problem = o.audit?.log.problem;
  return {
    gateway: {
      version: o.gateway.version,
      transport: o.gateway.transport,
      url: o.gateway.url() ?? null,
      startedAt: new Date(o.gateway.startedAt).toISOString(),
      audit: o.audit === undefined ? 'off' : 'on',
      ...(problem !== undefined ? { auditProblem: problem } : {}),
      pins: o.pins !== undefined,
      consentQueue: o.consent?.queued === true,
    },
    servers,
    // Local servers that are not running because their launch waits for a person (the Review page approves them).
    pendingLaunches: (o.launches?.pending() ?? []).map((l) => l.server),
    metrics: { bucketMs: BUCKET_MS, buckets: BUCKETS, series },
  };
}

/**
 * A server's counts: what it exposes, what the trust layer withholds (`withheld`: quarantined by
 * the pins), and (`scannerBlocked`) the exposed items the scanner blocks on a `block`-mode server.
 */
function counts(o: ConsoleOptions, id: string): Record<string, number> {
  const { host } = o;
  const count = (items: readonly { readonly serverId: string }[]): number => items.reduce((n, i) => (i.serverId === id ? n + 1 : n), 0);
  const mode = o.config().servers.find((s) => s.id === id)?.options.scan ?? 'block';
  const exposed = [...host.tools, ...host.prompts, ...host.resources, ...host.templates];
  const scannerBlocked = mode !== 'block' ? 0 : exposed.reduce((n, e) => (e.serverId === id && o.scanner?.verdictOf(e.definition)?.verdict === 'block' ? n + 1 : n), 0);
  return { tools: count(host.tools), prompts: count(host.prompts), resources: count(host.resources), templates: count(host.templates), withheld: count(host.withheld), scannerBlocked };
}

/** The tools' JSON: every exposed tool with its trust, findings and labels, and what is withheld. */
export function tools(o: ConsoleOptions): Record<string, unknown> {
  const { host } = o;
  const config = o.config();
  const records = new Map<string, ServerPins>();
  for (const r of o.pins?.trust.records ?? []) records.set(r.identity, r);
  const resolver = new LabelResolver(o.policy?.labels ?? {}, o.scanner === undefined ? undefined : (d) => o.scanner?.verdictOf(d)?.findings);
  const identities = new Map<string, string>();
  const identityOf = (serverId: string): string | undefined => {
    if (!identities.has(serverId)) {
      const spec = host.server(serverId)?.spec ?? config.servers.find((s) => s.id === serverId);
      if (spec !== undefined) identities.set(serverId, o.pins?.trust.identityOf(spec) ?? serverIdentity(spec));
    }
    return identities.get(serverId);
  };
  const list = host.tools.map((t) => {
    const d = t.definition;
    const identity = identityOf(t.serverId);
    const record = identity === undefined ? undefined : records.get(identity);
    const pinned = record?.items[itemKey('tool', d.name)];
    const report = o.scanner?.verdictOf(d);
    const labels = resolver.resolve(t.serverId, d.name, d as unknown as Readonly<Record<string, unknown>>);
    return {
      name: t.name,
      server: t.serverId,
      ownName: d.name,
      ...(d.title !== undefined ? { title: d.title } : {}),
      ...(d.description !== undefined ? { description: d.description } : {}),
      inputSchema: d.inputSchema,
      ...(d.outputSchema !== undefined ? { outputSchema: d.outputSchema } : {}),
      ...(d.annotations !== undefined ? { annotations: d.annotations } : {}),
      trust: o.pins === undefined ? null : (pinned?.trust ?? null),
      ...(record?.keyThumbprint !== undefined ? { keyThumbprint: record.keyThumbprint } : {}),
      verdict: report?.verdict ?? null,
      findings: report?.findings ?? [],
      labels: labels.labels.map((label) => ({ label, origin: originOf(labels.origins[label]), why: labels.origins[label] })),
    };
  });
  const withheld = host.withheld.map((w) => ({ server: w.serverId, kind: w.kind, name: w.name, exposedName: w.exposedName, reason: w.reason }));
  return { tools: list, withheld };
}

function originOf(why: string | undefined): 'config' | 'annotation' | 'scanner' {
  if (why?.startsWith('annotation') === true) return 'annotation';
  if (why?.startsWith('scanner') === true) return 'scanner';
  return 'config';
}
