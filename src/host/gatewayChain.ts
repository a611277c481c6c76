/**
 * The gateway's interceptor chain, built in one place: {@link buildChain} takes the parts a
 * gateway runs and returns them in the order every request passes them. It is pure (no I/O,
 * no clock), so the order `switchboard gateway` runs can be read, and tested, here alone.
 *
 * | order | id | phase | part |
 * |---|---|---|---|
 * | 1 | `console.metrics` | audit | call counts and latencies for the console (optional) |
 * | 2 | `audit.log` | audit | the tamper-evident record of every request (unless `switchboard.audit` is false) |
 * | 3 | `trust.pins` | trust | refuses what changed since pinned (unless `switchboard.pins` is false) |
 * | 4 | `trust.scanner` | trust | hides and refuses what the poisoning scanner blocks |
 * | 5 | `trust.sanitize-request` | trust | strips hidden text from a server's questions (`server/request`) before anything judges them |
 * | 6 | `policy.protected-paths` | policy | refuses requests naming the gateway's own files; leaves them out of the roots servers get |
 * | 7 | `policy.arguments` | policy | refuses call arguments the pinned `inputSchema` refuses, URLs to metadata addresses or outside `egressAllow`, paths outside the roots; asks about shell metacharacters sent to command runners (`checkArguments`) |
 * | 8 | `policy` | policy | rules, trifecta, value taint |
 * | 9 | `consent` | consent | asks a person when the policy says `ask` |
 * | 10 | `guard` | guard | rate limits, concurrency caps, size bounds (`switchboard.guards`) |
 * | 11 | `guard.sanitize` | guard | the result sanitiser, last before the server and first on the result |
 *
 * The phases fix the order (`interceptors.ts`); within a phase the order above is the
 * registration order.
 *
 * @module
 */
import type { Interceptor } from './interceptors.js';

/** The parts of a gateway's chain; absent parts are off. */
export interface ChainParts {
  /** Observers of the `audit` phase that run before the log (the console's metrics). */
  readonly observers?: readonly Interceptor[];
  readonly audit?: Interceptor;
  readonly pins?: Interceptor;
  /** Other tenants' servers hidden and refused (`tenantScope.ts`). */
  readonly tenant?: Interceptor;
  readonly scanner?: Interceptor;
  /** The gateway's own files (`protectedPathsInterceptor.ts`). */
  readonly paths?: Interceptor;
  /** The checks of call arguments (`argumentChecks.ts`). */
  readonly arguments?: Interceptor;
  readonly policy?: Interceptor;
  readonly consent?: Interceptor;
  readonly guards?: Interceptor;
  /** The sanitiser of results (`guard.sanitize`) and of a server's questions (`trust.sanitize-request`), `switchboard.sanitize`. */
  readonly sanitize?: { readonly results: Interceptor; readonly requests: Interceptor };
}

/** The chain's interceptors in the order they run (see the module comment). */
export function buildChain(parts: ChainParts): Interceptor[] {
  const chain: Interceptor[] = [...(parts.observers ?? [])];
  for (const part of [parts.audit, parts.pins, parts.tenant, parts.scanner, parts.sanitize?.requests, parts.paths, parts.arguments, parts.policy, parts.consent, parts.guards, parts.sanitize?.results]) {
    if (part !== undefined) chain.push(part);
  }
  return chain;
}
