/**
 * The scanner in the gateway: a `trust`-phase interceptor (`trust.scanner`) that scans on
 * list and serves precomputed verdicts on the call path. On `tools/list`, `prompts/list`,
 * `resources/list` and `resources/templates/list` it scans what the host lists (each server's
 * tools judged against every other server's, for shadowing), remembers the verdict of each
 * definition object, and hides the items whose verdict is `block` on servers whose mode is
 * `block`. On `tools/call`, `prompts/get` and `resources/read` it only looks the definition up
 * (a definition never listed is scanned once, alone) and refuses a blocked one with a reason
 * naming the rules, before the request reaches the server.
 *
 * Verdicts are keyed by definition identity: the host replaces a server's catalog whole on
 * every refresh and list_changed, so a changed definition is a new object and is scanned
 * again; an unchanged one costs a map lookup.
 *
 * @module
 */
import type { ScanMode } from '../configTypes.js';
import type { ExposedPrompt, ExposedResource, ExposedTemplate, ExposedTool } from '../host.js';
import { DeniedError, type InterceptContext, type InterceptedMethod, type Interceptor, type Next } from '../interceptors.js';
import { scanServer, scanServers } from './scan.js';
import type { ItemReport, ServerSnapshot } from './types.js';

/** The id every decision of the scanner carries. */
export const SCANNER_INTERCEPTOR_ID = 'trust.scanner';

/** Options of {@link Scanner}. */
export interface ScannerOptions {
  /** Each server's mode (config `switchboard.servers.<id>.scan`); default `block` for every server. */
  readonly modeOf?: (serverId: string) => ScanMode | undefined;
  /** Called with each new report (warnings and blocks), e.g. to log them. */
  readonly onReport?: (serverId: string, report: ItemReport) => void;
}

const LISTS: readonly InterceptedMethod[] = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];
const USES: readonly InterceptedMethod[] = ['tools/call', 'prompts/get', 'resources/read'];

type Exposed = ExposedTool | ExposedPrompt | ExposedResource | ExposedTemplate;

/** The one-line reason a blocked item is refused. */
export function blockReason(report: ItemReport): string {
  const rules = [...new Set(report.findings.filter((f) => f.blocking).map((f) => f.rule))];
  return `the ${report.kind} ${JSON.stringify(report.item)} of server ${report.server ?? '?'} is blocked by the poisoning scanner (${rules.join(', ')}); review it with \`switchboard scan\`, or set switchboard.servers.${report.server ?? '<id>'}.scan to "warn" to allow it`;
}

/** Scans listed definitions and enforces the verdicts. */
export class Scanner {
  readonly #verdicts = new WeakMap<object, ItemReport>();
  readonly #lists = new WeakMap<readonly unknown[], readonly unknown[]>();
  readonly #options: ScannerOptions;
  /** The interceptor to give the host. */
  readonly interceptor: Interceptor;

  constructor(options: ScannerOptions = {}) {
    this.#options = options;
    this.interceptor = {
      id: SCANNER_INTERCEPTOR_ID,
      phase: 'trust',
      methods: [...LISTS, ...USES],
      // A use is decided from the verdict remembered at list time, with no async frame per call.
      intercept: (ctx, next) => (ctx.server !== undefined && !LISTS.includes(ctx.method) ? this.#use(ctx, ctx.server.id, next) : this.#intercept(ctx, next)),
    };
  }

  /** The verdict of a definition object, when it was scanned. */
  verdictOf(definition: object): ItemReport | undefined {
    return this.#verdicts.get(definition);
  }

  #mode(serverId: string): ScanMode {
    return this.#options.modeOf?.(serverId) ?? 'block';
  }

  async #intercept(ctx: InterceptContext, next: Next): Promise<unknown> {
    if (LISTS.includes(ctx.method)) {
      const listed = await next();
      return Array.isArray(listed) ? this.filter(listed as readonly Exposed[], ctx) : listed;
    }
    // A use without a server (none resolved): nothing to judge it against.
    if (ctx.server === undefined) return next();
    return this.#use(ctx, ctx.server.id, next);
  }

  /** A call, get or read of server `serverId`: refused when its definition's verdict is `block` on a `block`-mode server. */
  #use(ctx: InterceptContext, serverId: string, next: Next): Promise<unknown> {
    const mode = this.#mode(serverId);
    const definition = ctx.definition;
    if (mode === 'off' || definition === undefined) return next();
    try {
      // Never listed (an agent calling by a known name): scan it alone, once.
      const report = this.#verdicts.get(definition) ?? this.#scanAlone(serverId, ctx.method, definition);
      if (report.verdict === 'block' && mode === 'block') {
        ctx.record({ interceptor: SCANNER_INTERCEPTOR_ID, outcome: 'deny', reason: blockReason(report), detail: { rules: report.findings.map((f) => f.rule) } });
        return Promise.reject(new DeniedError(SCANNER_INTERCEPTOR_ID, blockReason(report)));
      }
      if (report.verdict !== 'pass') ctx.record({ interceptor: SCANNER_INTERCEPTOR_ID, outcome: 'observe', reason: `${report.findings.length} scanner finding(s)`, detail: { rules: report.findings.map((f) => f.rule) } });
    } catch (error) {
      return Promise.reject(error);
    }
    return next();
  }

  #scanAlone(serverId: string, method: InterceptedMethod, definition: object): ItemReport {
    const snapshot: ServerSnapshot =
      method === 'tools/call' ? { server: serverId, tools: [definition] } : method === 'prompts/get' ? { server: serverId, prompts: [definition] } : { server: serverId, resources: [definition] };
    const report = scanServer(snapshot).items[0] as ItemReport;
    this.#remember(definition, report);
    return report;
  }

  #remember(definition: object, report: ItemReport): void {
    if (this.#verdicts.get(definition) === report) return;
    this.#verdicts.set(definition, report);
    if (report.verdict !== 'pass') this.#options.onReport?.(report.server ?? '', report);
  }

  /**
   * Scans a listed registry (exposed tools, prompts, resources or templates of every server)
   * and returns it without the items blocked on `block`-mode servers. The same list object
   * (the host keeps it until its registry changes) is scanned once.
   */
  filter<T extends Exposed>(listed: readonly T[], ctx?: InterceptContext): readonly T[] {
    const cached = this.#lists.get(listed);
    if (cached !== undefined) return cached as readonly T[];
    const scanned = listed.filter((e) => this.#mode(e.serverId) !== 'off');
    const servers = [...new Set(scanned.map((e) => e.serverId))];
    const field = kindOf(listed[0]);
    const snapshots: ServerSnapshot[] = servers.map((id) => ({ server: id, [field]: scanned.filter((e) => e.serverId === id).map((e) => e.definition) }));
    const reports = scanServers(snapshots).items;
    // scanServers keeps server order and item order: pair them back up.
    const bySnapshot = new Map<string, ItemReport[]>();
    for (const r of reports) bySnapshot.set(r.server ?? '', [...(bySnapshot.get(r.server ?? '') ?? []), r]);
    for (const id of servers) {
      const mine = scanned.filter((e) => e.serverId === id);
      const found = bySnapshot.get(id) ?? [];
      mine.forEach((e, i) => {
        const r = found[i];
        if (r !== undefined) this.#remember(e.definition, r);
      });
    }
    const hidden: string[] = [];
    const kept = listed.filter((e) => {
      const r = this.#verdicts.get(e.definition);
      const hide = r?.verdict === 'block' && this.#mode(e.serverId) === 'block';
      if (hide) hidden.push(`${e.serverId}:${r.item}`);
      return !hide;
    });
    if (hidden.length > 0) ctx?.record({ interceptor: SCANNER_INTERCEPTOR_ID, outcome: 'change', reason: `hid ${hidden.length} item(s) blocked by the poisoning scanner`, detail: { hidden } });
    const frozen = Object.freeze(kept);
    this.#lists.set(listed, frozen);
    return frozen;
  }
}

function kindOf(entry: Exposed | undefined): 'tools' | 'prompts' | 'resources' | 'templates' {
  if (entry === undefined || 'tool' in entry) return 'tools';
  if ('prompt' in entry) return 'prompts';
  if ('resource' in entry) return 'resources';
  return 'templates';
}
