// A consent interceptor in a chain behind a tiny `policy` step that records `ask`, with a
// frozen clock, recorded audit entries and routed calls (shared by the consent unit tests).
import type { AuditEntry } from '../../../../src/host/audit.js';
import { consentInterceptor } from '../../../../src/host/consent/consentInterceptor.js';
import { MemoryGrantStore } from '../../../../src/host/consent/consentGrants.js';
import type { ConsentProvider } from '../../../../src/host/consent/consentTypes.js';
import { InterceptorChain, interceptContext, type InterceptContext, type InterceptedMethod, type Interceptor } from '../../../../src/host/interceptors.js';
import type { ElicitParams, ElicitResult } from '../../../../src/protocol/model/elicitation.js';

/** A `policy` step that asks for every call of a tool named in `asked`. */
export function askingPolicy(asked: ReadonlySet<string> = new Set(['send'])): Interceptor {
  return {
    id: 'policy',
    phase: 'policy',
    intercept(ctx, next) {
      const name = ctx.params['name'];
      if (ctx.method === 'server/request' || (typeof name === 'string' && asked.has(name))) {
        ctx.record({ interceptor: 'policy', outcome: 'ask', reason: 'egress after private data; untrusted content', detail: { rule: 'trifecta', reasons: ['egress after private data', 'untrusted content'] } });
      }
      return next();
    },
  };
}

export interface Call {
  readonly tool?: string;
  readonly args?: Record<string, unknown>;
  readonly server?: string;
  readonly principal?: string;
  readonly session?: string;
  readonly definition?: Record<string, unknown>;
  readonly method?: InterceptedMethod;
  readonly serverMethod?: string;
  readonly params?: Record<string, unknown>;
  readonly elicit?: (p: ElicitParams) => Promise<ElicitResult>;
  readonly signal?: AbortSignal;
}

export interface World {
  readonly clock: { now: number };
  readonly routed: Call[];
  readonly audited: AuditEntry[];
  readonly grants: MemoryGrantStore;
  /** Runs one call through the chain; resolves with its context (decisions). */
  call(call?: Call): Promise<InterceptContext>;
  /** Identities of server ids (change one to simulate a swapped server). */
  readonly identities: Map<string, string>;
}

export const DEFINITION = { name: 'send', description: 'Sends a message', inputSchema: { type: 'object' } };

export function consentWorld(providers: readonly ConsentProvider[], options: { timeoutMs?: number; audit?: (e: AuditEntry) => Promise<void> } = {}): World {
  const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
  const routed: Call[] = [];
  const audited: AuditEntry[] = [];
  const grants = new MemoryGrantStore();
  const identities = new Map([['mail', 'http:https://mail.example/mcp'], ['other', 'http:https://other.example/mcp']]);
  let ids = 0;
  const chain = new InterceptorChain([
    askingPolicy(),
    consentInterceptor({
      providers,
      grants,
      identityOf: (id) => identities.get(id),
      now: () => clock.now,
      newId: () => `id-${++ids}`,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      audit: options.audit ?? ((e) => (audited.push(e), Promise.resolve())),
    }),
  ]);
  return {
    clock,
    routed,
    audited,
    grants,
    identities,
    async call(call: Call = {}) {
      const method = call.method ?? 'tools/call';
      const params = call.params ?? { name: call.tool ?? 'send', arguments: call.args ?? { to: 'bob@example.com', body: 'hi' } };
      const ctx = interceptContext({
        method,
        ...(call.serverMethod !== undefined ? { serverMethod: call.serverMethod } : {}),
        principal: { id: call.principal ?? 'agent-1' },
        session: call.session ?? 's1',
        server: { id: call.server ?? 'mail' },
        ...(method === 'tools/call' ? { exposedName: String(params['name']), definition: call.definition ?? { ...DEFINITION, name: String(params['name']) } } : {}),
        params,
        signal: call.signal ?? new AbortController().signal,
        ...(call.elicit !== undefined ? { elicit: call.elicit } : {}),
      });
      await chain.run(ctx, () => (routed.push(call), Promise.resolve({ content: [] })));
      return ctx;
    },
  };
}

/** A provider that answers from a script (and counts how often it was asked). */
export function scripted(answer: ConsentProvider['ask']): ConsentProvider & { asked: number } {
  const p = {
    name: 'scripted',
    asked: 0,
    available: () => true,
    ask: (request: Parameters<ConsentProvider['ask']>[0], env: Parameters<ConsentProvider['ask']>[1]) => {
      p.asked++;
      return answer(request, env);
    },
  };
  return p;
}
