// Tenants: a server tagged with a tenant is listed and callable only by that tenant's
// principals (tenant from a verified token's claim); rules read principal.tenant, server.auth
// and server.tenant.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeniedError, interceptContext, InterceptorChain, type InterceptedMethod } from '../../../src/host/interceptors.js';
import { compileRules, evaluateRules } from '../../../src/host/policy/rules.js';
import { policyInterceptor } from '../../../src/host/policy/policyEngine.js';
import { tenantFromClaim, tenantInterceptor } from '../../../src/host/tenantScope.js';
import type { Principal } from '../../../src/transport/principal.js';

const T = { timeout: 5_000 };
const principal = (id: string, org?: string): Principal => ({ id, auth: { subject: id, scopes: [], claims: org === undefined ? {} : { org }, audience: [], issuer: 'https://as.example' } as unknown as NonNullable<Principal['auth']> });
const tenants: Readonly<Record<string, string>> = { acme: 'acme', globex: 'globex' };
const scope = tenantInterceptor({ tenantOf: tenantFromClaim('org'), serverTenant: (id) => tenants[id] });
const ctx = (method: InterceptedMethod, who: Principal | undefined, server?: string) =>
  interceptContext({ method, principal: who, session: undefined, server: server === undefined ? undefined : { id: server }, exposedName: server === undefined ? undefined : `${server}__t`, params: {}, signal: new AbortController().signal });
const LIST = [{ serverId: 'acme' }, { serverId: 'globex' }, { serverId: 'shared' }];

describe('host/tenantScope', () => {
  it('a principal sees its tenant\'s servers and the untagged ones', T, async () => {
    assert.deepEqual(await scope.intercept(ctx('tools/list', principal('a', 'acme')), () => Promise.resolve(LIST)), [{ serverId: 'acme' }, { serverId: 'shared' }]);
    assert.deepEqual(await scope.intercept(ctx('prompts/list', principal('g', 'globex')), () => Promise.resolve(LIST)), [{ serverId: 'globex' }, { serverId: 'shared' }]);
  });

  it('no-tenant-claim-sees-no-tenant-servers (a principal without the claim, or anonymous)', T, async () => {
    assert.deepEqual(await scope.intercept(ctx('tools/list', principal('x')), () => Promise.resolve(LIST)), [{ serverId: 'shared' }]);
    assert.deepEqual(await scope.intercept(ctx('tools/list', undefined), () => Promise.resolve(LIST)), [{ serverId: 'shared' }]);
  });

  it('call-to-another-tenants-tool-by-name is refused before it reaches the server', T, async () => {
    let reached = 0;
    const next = (): Promise<unknown> => Promise.resolve(++reached);
    await assert.rejects(scope.intercept(ctx('tools/call', principal('g', 'globex'), 'acme'), next), DeniedError);
    await assert.rejects(scope.intercept(ctx('resources/read', principal('x'), 'acme'), next), DeniedError);
    assert.equal(reached, 0);
    assert.equal(await scope.intercept(ctx('tools/call', principal('a', 'acme'), 'acme'), next), 1);
  });

  it('tenant-claim-of-the-wrong-type is no tenant', T, async () => {
    const odd: Principal = { id: 'o', auth: { subject: 'o', scopes: [], claims: { org: ['acme'] }, audience: [], issuer: 'i' } as unknown as NonNullable<Principal['auth']> };
    await assert.rejects(scope.intercept(ctx('tools/call', odd, 'acme'), () => Promise.resolve(1)), DeniedError);
  });

  it('rules read principal.tenant, server.auth and server.tenant', T, () => {
    const rules = compileRules([{ id: 'cross-tenant', when: 'server.tenant != "" && principal.tenant != server.tenant', outcome: 'deny' }, { id: 'per-user-ask', when: 'server.auth == "per-user"', outcome: 'ask' }]);
    const vars = (tenant: string, auth: string, serverTenant: string) => ({
      principal: { id: 'p', subject: 'p', scopes: [], claims: {}, tenant },
      server: { id: 's', identity: '', labels: [], auth, tenant: serverTenant },
      tool: { name: 't', annotations: {}, labels: [] },
      method: 'tools/call',
      serverMethod: '',
      args: {},
      session: { id: 's', labels: [], sources: [] },
      connected: true,
    });
    assert.equal(evaluateRules(rules, vars('globex', 'shared', 'acme')).outcome, 'deny');
    assert.equal(evaluateRules(rules, vars('acme', 'per-user', 'acme')).outcome, 'ask');
    assert.equal(evaluateRules(rules, vars('acme', 'shared', '')).outcome, undefined);
  });

  it('rules read connected (asked only when a rule reads it): a caller without a connection is refused by the rule', T, async () => {
    const asked: (string | undefined)[] = [];
    const connected = (principal: string | undefined): Promise<boolean> => {
      asked.push(principal);
      return Promise.resolve(principal === 'a');
    };
    const guarded = policyInterceptor({ rules: [{ id: 'connect-first', when: 'server.auth == "per-user" && !connected', outcome: 'deny' }], trifecta: 'off', canAsk: false, serverAuthority: () => ({ auth: 'per-user', tenant: '' }), connected });
    assert.equal(await guarded.intercept(ctx('tools/call', principal('a'), 'acme'), () => Promise.resolve('sent')), 'sent');
    await assert.rejects(guarded.intercept(ctx('tools/call', principal('b'), 'acme'), () => Promise.resolve('sent')), DeniedError);
    assert.deepEqual(asked, ['a', 'b']);
    const other = policyInterceptor({ rules: [{ id: 'plain', when: 'server.auth == "shared"', outcome: 'deny' }], trifecta: 'off', canAsk: false, serverAuthority: () => ({ auth: 'per-user', tenant: '' }), connected });
    assert.equal(await other.intercept(ctx('tools/call', principal('b'), 'acme'), () => Promise.resolve('sent')), 'sent');
    assert.equal(asked.length, 2, 'not asked when no rule reads it');
  });
  it('another-tenant-call-fails-closed through the chain: a rejection (never a synchronous throw), the route never runs', T, async () => {
    const chain = new InterceptorChain([scope]);
    let routed = 0;
    const run = chain.run(ctx('tools/call', principal('g', 'globex'), 'acme'), () => {
      routed++;
      return Promise.resolve('sent');
    });
    assert.ok(run instanceof Promise);
    await assert.rejects(run, DeniedError);
    assert.equal(routed, 0);
    // A tenant lookup that throws also denies, as a rejection.
    const broken = tenantInterceptor({ tenantOf: () => { throw new Error('claim unreadable'); }, serverTenant: (id) => tenants[id] });
    const brokenRun = new InterceptorChain([broken]).run(ctx('tools/call', principal('a', 'acme'), 'acme'), () => {
      routed++;
      return Promise.resolve('sent');
    });
    await assert.rejects(brokenRun, /claim unreadable/);
    assert.equal(routed, 0);
  });

  it('an interceptor that throws synchronously (not async) fails the chain as a rejection', T, async () => {
    const throwing = { id: 'test.sync-throw', phase: 'policy' as const, intercept: (): Promise<unknown> => { throw new DeniedError('test.sync-throw', 'no'); } };
    let routed = 0;
    const run = new InterceptorChain([scope, throwing]).run(ctx('tools/call', principal('a', 'acme'), 'acme'), () => {
      routed++;
      return Promise.resolve('sent');
    });
    await assert.rejects(run, DeniedError);
    assert.equal(routed, 0);
  });
});
