/**
 * The gateway's interceptor chain, two source trees side by side in one process: CPU µs per
 * `host.callTool` through the full chain of `npm run bench`'s `gw-full` (or the empty one),
 * 32 calls in flight on an in-memory echo server, alternating short rounds of tree A and tree B
 * so that the load of a shared machine falls on both alike (the HTTP bench's cpuUs swings by a
 * third there). Prints the medians and the median of the paired differences (A - B).
 *
 * `npx tsx bench/chainAB.ts <treeA> <treeB> <stateless|session> <calls a round> <rounds> [full|empty]`
 * (a tree is a checkout's root; `git worktree add` one at the commit to compare with).
 * `B_AUDIT='{"durability":"batch"}'` (or `false`) sets B's `switchboard.audit`, to see what the log costs
 * (`A_AUDIT` A's);
 * `B_DROP=pins,scan,...` runs B without those parts (see {@link DROP}).
 *
 * @module
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [rootA = '', rootB = '', wire = 'session', callsArg = '2000', roundsArg = '10', chain = 'full'] = process.argv.slice(2);
const FULL = {
  audit: true, pins: true, servers: { echo: { scan: 'block', labels: ['private-data'] } }, sanitize: { mode: 'strip' },
  guards: { rateLimits: [{ by: ['principal', 'tool'], max: 1_000_000_000, perMs: 1000 }], maxConcurrentPerPrincipal: 10_000, circuitBreaker: { failures: 5, openMs: 30_000 }, maxResultBytes: 1_048_576 },
  policy: { rules: [
    { id: 'no-destructive-after-untrusted', when: '"destructive" in tool.labels && "untrusted-content" in session.labels', outcome: 'deny', reason: 'x' },
    { id: 'ask-large-args', when: 'size(args) > 64', outcome: 'ask', reason: 'y' }] },
};
const EMPTY = { audit: false, pins: false, servers: { echo: { scan: 'off' } }, sanitize: false, redact: false, policy: { trifecta: 'off', valueTaint: 'off', serverRequests: 'off' } };

/** `B_DROP=pins,scan,policy,consent,guards,sanitize,redact,telemetry`: parts of the full chain tree B runs without. */
const DROP = new Set((process.env['B_DROP'] ?? '').split(',').filter((x) => x !== ''));
async function setup(root: string, auditSetting: unknown = FULL.audit, drop: ReadonlySet<string> = new Set()) {
  const im = (p: string) => import(join(root, p));
  const { Host } = await im('src/host/host.ts');
  const { Scanner } = await im('src/host/scanner/scanner.ts');
  const { auditInterceptor } = await im('src/host/audit.ts');
  const { guardInterceptor } = await im('src/host/guards.ts');
  const { sanitizeInterceptor, redactResult } = await im('src/host/sanitize/sanitize.ts');
  const { sanitizeRequestInterceptor } = await im('src/host/sanitize/sanitizeRequests.ts');
  const { findSecrets } = await im('src/host/secrets/findSecrets.ts');
  const { redactingAuditLog } = await im('src/host/secrets/redact.ts');
  const { emittingAuditLog } = await im('src/host/auditTelemetry.ts');
  const { serverLabelsOf } = await im('src/host/configPolicy.ts');
  const { ReloadablePolicy } = await im('src/host/policy/policyReload.ts');
  const { PersistentTaintStore } = await im('src/host/policy/taintPersistence.ts');
  const { loadConfig, openPins } = await im('src/cli/hostSetup.ts');
  const { SqliteAuditLog } = await im('src/store/sqliteAudit.ts');
  const { SqliteTaintSnapshot } = await im('src/store/sqliteTaintStore.ts');
  const { auditFile, auditStoreOptions } = await im('src/cli/auditFiles.ts');
  const { gatewayConsent } = await im('src/cli/gatewayConsent.ts');
  const { McpServer } = await im('src/server/mcpServer.ts');
  const { createLineLogger } = await im('src/util/logger.ts');
  const { memoryServers, memorySpec } = await im('test/unit/host/support/memoryServers.ts');
  const dir = mkdtempSync(join(tmpdir(), 'chainab-'));
  const file = join(dir, 'switchboard.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { echo: { command: 'memory' } }, switchboard: { namespacing: 'never', stateDir: join(dir, 'state'), ...(chain === "full" ? { ...FULL, audit: auditSetting } : EMPTY) } }));
  const config = await loadConfig(file);
  const logger = createLineLogger((line: string) => process.stderr.write(line), 'warn');
  const secretOptions = { entropy: config.redact.entropy };
  // As the gateway opens it (its durability, sync interval and process), where the tree has auditStoreOptions.
  const audit = config.audit ? SqliteAuditLog.open(auditFile(config.stateDir), auditStoreOptions?.(config) ?? { durability: config.auditDurability }) : undefined;
  const redacted = audit === undefined || !config.redact.audit || drop.has('redact') ? audit : redactingAuditLog(audit, secretOptions);
  const auditLog = redacted === undefined || drop.has('telemetry') ? redacted : emittingAuditLog(redacted, {});
  const callConsent = await gatewayConsent({ config, current: () => config, interactive: false, audit: auditLog, logger });
  const scanner = new Scanner({ modeOf: (id: string) => config.servers.find((s: { id: string }) => s.id === id)?.options.scan });
  const pins = config.pins ? await openPins(config, logger, () => config, 'x') : undefined;
  const taint = new PersistentTaintStore(SqliteTaintSnapshot.open(join(config.stateDir, 'taint.db')), { maxKeys: config.policy.maxTrackedSessions });
  const policy = new ReloadablePolicy(
    { canAsk: true, detectSecrets: (text: string) => findSecrets(text, secretOptions).map((m: { value: string }) => m.value), redact: (r: unknown) => redactResult(r, secretOptions), findingsOf: (d: object) => scanner.verdictOf(d)?.findings, store: taint },
    config.policy,
    serverLabelsOf(config.servers),
  );
  const echo = () => {
    const s = new McpServer({ name: 'floor', version: '0.0.0' });
    s.tool('echo', { description: 'Echoes the message back.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }, (args: Record<string, unknown>) => String(args['message']));
    return s;
  };
  const servers = memoryServers(echo);
  const interceptors = [
    ...(auditLog !== undefined ? [auditInterceptor(auditLog)] : []),
    ...(pins !== undefined && !drop.has('pins') ? [pins.trust.interceptor()] : []),
    ...(drop.has('scan') ? [] : [scanner.interceptor]), ...(drop.has('policy') ? [] : [policy.interceptor]), ...(drop.has('consent') ? [] : [callConsent.interceptor]),
    ...(config.guards !== undefined && !drop.has('guards') ? [guardInterceptor({ ...config.guards })] : []),
    ...(config.sanitize.mode !== 'off' && !drop.has('sanitize') ? [sanitizeInterceptor(config.sanitize), sanitizeRequestInterceptor(config.sanitize)] : []),
  ];
  const host = await Host.open({ servers: [memorySpec('echo')], namespacing: 'never', transport: servers.factory, logger, ...(pins !== undefined && !drop.has('pins') ? { trust: pins.trust } : {}), interceptors });
  await host.start();
  return { host, audit };
}

const MESSAGE = 'hello';
async function run(host: { callTool: (n: string, a: unknown, o: unknown) => Promise<unknown> }, n: number): Promise<void> {
  let left = n;
  await Promise.all(Array.from({ length: 32 }, async (_, lane) => {
    const scope = wire === 'session' ? { session: `s-${lane}` } : {};
    while (left-- > 0) {
      const r = (await host.callTool('echo', { message: MESSAGE }, scope)) as { content: { text: string }[] };
      if (r.content[0]?.text !== MESSAGE) throw new Error('bad answer');
    }
  }));
}
const A = await setup(rootA, process.env['A_AUDIT'] !== undefined ? JSON.parse(process.env['A_AUDIT']) : FULL.audit);
const B = await setup(rootB, process.env['B_AUDIT'] !== undefined ? JSON.parse(process.env['B_AUDIT']) : FULL.audit, DROP);
const calls = Number(callsArg);
for (const x of [A, B, A, B]) await run(x.host, calls);
const tot = { A: [] as number[], B: [] as number[] };
for (let r = 0; r < Number(roundsArg); r++) {
  for (const [name, x] of r % 2 === 0 ? ([['A', A], ['B', B]] as const) : ([['B', B], ['A', A]] as const)) {
    const c0 = process.cpuUsage();
    await run(x.host, calls);
    const c = process.cpuUsage(c0);
    tot[name].push((c.user + c.system) / calls);
  }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] as number;
const sum = (a: number[]) => a.reduce((s, x) => s + x, 0) / a.length;
console.log(JSON.stringify({ wire, chain, A: { median: +med(tot.A).toFixed(1), mean: +sum(tot.A).toFixed(1) }, B: { median: +med(tot.B).toFixed(1), mean: +sum(tot.B).toFixed(1) }, pairedDiffMedian: +med(tot.A.map((a, i) => a - (tot.B[i] as number))).toFixed(1), commitsA: A.audit?.commits, commitsB: B.audit?.commits }));
process.exit(0);
