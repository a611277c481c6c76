/**
 * Tenants: a server tagged `servers.<id>.tenant` is seen and called only by principals of that
 * tenant (`principal.tenant`, read from the verified token's claim named by
 * `gateway.auth.oauth.tenantClaim`). Lists drop its entries for anyone else, and a call,
 * get or read of one of them is refused (the name may be known from elsewhere). A server with
 * no tenant is everyone's; a principal with no tenant sees only those.
 *
 * @module
 */
import type { Principal } from '../transport/principal.js';
import { DeniedError, type Interceptor, type InterceptedMethod } from './interceptors.js';

/** The interceptor id (recorded with its refusals). */
export const TENANT_INTERCEPTOR_ID = 'policy.tenant';

const LISTS: ReadonlySet<InterceptedMethod> = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

/** Options of {@link tenantInterceptor}. */
export interface TenantScopeOptions {
  /** The caller's tenant, if any. */
  readonly tenantOf: (principal: Principal) => string | undefined;
  /** The tenant a server id belongs to, if any (read per request: a reload applies). */
  readonly serverTenant: (serverId: string) => string | undefined;
}

/** `principal.tenant` from the verified token's claim `claim` (a non-empty string, else none). */
export function tenantFromClaim(claim: string): (principal: Principal) => string | undefined {
  return (principal) => {
    const value = principal.auth?.claims[claim];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
}

/** Hides and refuses other tenants' servers (phase `trust`: before policy, consent and the call). */
export function tenantInterceptor(options: TenantScopeOptions): Interceptor {
  const allowed = (tenant: string | undefined, serverId: string): boolean => {
    const owner = options.serverTenant(serverId);
    return owner === undefined || owner === tenant;
  };
  return {
    id: TENANT_INTERCEPTOR_ID,
    phase: 'trust',
    // Not `async`: a call that is not a list returns `next()`'s own promise (one async frame and
    // two hops less on every forwarded call); a throw still becomes a rejection (fail closed).
    intercept(ctx, next) {
      let tenant: string | undefined;
      try {
        tenant = ctx.principal === undefined ? undefined : options.tenantOf(ctx.principal);
        if (ctx.server !== undefined && !allowed(tenant, ctx.server.id)) {
          ctx.record({ interceptor: TENANT_INTERCEPTOR_ID, outcome: 'deny', reason: 'the server belongs to another tenant' });
          throw new DeniedError(TENANT_INTERCEPTOR_ID, `${ctx.exposedName ?? 'this item'} is not available to you`);
        }
        if (!LISTS.has(ctx.method)) return next();
      } catch (error) {
        return Promise.reject(error);
      }
      return next().then((result) => (Array.isArray(result) ? (result as readonly { readonly serverId: string }[]).filter((item) => allowed(tenant, item.serverId)) : result));
    },
  };
}
