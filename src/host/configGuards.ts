/**
 * The `switchboard.guards` section of a config: rate limits, a per-caller concurrency cap, a
 * per-server circuit breaker and a result size cap (see `guards.ts`).
 *
 * @module
 */
import type { InterceptedMethod } from './interceptors.js';
import type { ConfigReader } from './configRead.js';
import { childPath } from './configTypes.js';
import type { GuardOptions, RateLimitRule, RateLimitScope } from './guards.js';


const GUARD_KEYS = ['rateLimits', 'maxConcurrentPerPrincipal', 'circuitBreaker', 'maxResultBytes'];
const SCOPES: readonly RateLimitScope[] = ['principal', 'server', 'tool'];
const METHODS: readonly InterceptedMethod[] = ['tools/call', 'prompts/get', 'resources/read', 'completion/complete', 'tasks/get', 'tasks/update', 'tasks/cancel'];

/** The guard options of `$.switchboard.guards`, or undefined when the section is absent. */
export function readGuards(read: ConfigReader, value: unknown): GuardOptions | undefined {
  if (value === undefined) return undefined;
  const path = '$.switchboard.guards';
  const section = read.record(value, path);
  read.strictKeys(section, GUARD_KEYS, path);
  const out: { -readonly [K in keyof GuardOptions]: GuardOptions[K] } = {};
  if (section['rateLimits'] !== undefined) {
    const at = childPath(path, 'rateLimits');
    if (!Array.isArray(section['rateLimits'])) read.fail(at, 'expected an array of { by, max, perMs, methods? }');
    out.rateLimits = (section['rateLimits'] as unknown[]).map((item, i): RateLimitRule => {
      const ruleAt = childPath(at, i);
      const rule = read.record(item, ruleAt);
      read.strictKeys(rule, ['by', 'max', 'perMs', 'methods'], ruleAt);
      const by = rule['by'] === undefined ? [] : read.strings(rule['by'], childPath(ruleAt, 'by'), (s, p) => read.choice(s, SCOPES, p));
      const methods = rule['methods'] === undefined ? undefined : read.strings(rule['methods'], childPath(ruleAt, 'methods'), (s, p) => read.choice(s, METHODS, p));
      if (rule['max'] === undefined || rule['perMs'] === undefined) read.fail(ruleAt, 'a rate limit needs "max" and "perMs"');
      return {
        by: by as RateLimitScope[],
        max: read.integer(rule['max'], 1, 1_000_000_000, childPath(ruleAt, 'max')),
        perMs: read.integer(rule['perMs'], 1, 86_400_000 * 31, childPath(ruleAt, 'perMs')),
        ...(methods !== undefined ? { methods: methods as InterceptedMethod[] } : {}),
      };
    });
  }
  if (section['maxConcurrentPerPrincipal'] !== undefined) out.maxConcurrentPerPrincipal = read.integer(section['maxConcurrentPerPrincipal'], 1, 100_000, childPath(path, 'maxConcurrentPerPrincipal'));
  if (section['maxResultBytes'] !== undefined) out.maxResultBytes = read.integer(section['maxResultBytes'], 1, 2 ** 31, childPath(path, 'maxResultBytes'));
  if (section['circuitBreaker'] !== undefined) {
    const at = childPath(path, 'circuitBreaker');
    const breaker = read.record(section['circuitBreaker'], at);
    read.strictKeys(breaker, ['failures', 'openMs'], at);
    out.circuitBreaker = {
      failures: breaker['failures'] === undefined ? 5 : read.integer(breaker['failures'], 1, 10_000, childPath(at, 'failures')),
      openMs: breaker['openMs'] === undefined ? 30_000 : read.integer(breaker['openMs'], 1, 86_400_000, childPath(at, 'openMs')),
    };
  }
  return out;
}
