/**
 * `switchboard.gateway.limits`: what one caller or one server can make the gateway hold or
 * do. Sessions per principal and the HTTP listener's connection cap and request timeouts
 * (slowloris) bound callers; the notification rates and the `list_changed` window bound
 * servers (see `notificationLimits.ts`).
 *
 * @module
 */
import type { ConfigReader } from './configRead.js';
import { childPath, type GatewayLimits } from './configTypes.js';
import { DEFAULT_NOTIFICATION_LIMITS } from './notificationLimits.js';

/** The defaults of `GatewayLimits`. */
export const DEFAULT_GATEWAY_LIMITS: GatewayLimits = Object.freeze({
  maxSessions: 10_000,
  sessionsPerPrincipal: 100,
  maxConnections: 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  ...DEFAULT_NOTIFICATION_LIMITS,
});

/** Each key with its bounds. */
const BOUNDS: Readonly<Record<keyof GatewayLimits, readonly [number, number]>> = Object.freeze({
  maxSessions: [1, 1_000_000],
  sessionsPerPrincipal: [1, 1_000_000],
  maxConnections: [1, 1_000_000],
  headersTimeoutMs: [100, 600_000],
  requestTimeoutMs: [100, 3_600_000],
  progressPerSecond: [1, 10_000],
  logsPerSecond: [1, 10_000],
  listChangedWindowMs: [0, 60_000],
});

/** Reads `$.switchboard.gateway.limits` (absent: the defaults). */
export function readGatewayLimits(read: ConfigReader, value: unknown): GatewayLimits {
  if (value === undefined) return DEFAULT_GATEWAY_LIMITS;
  const path = '$.switchboard.gateway.limits';
  const section = read.record(value, path);
  const keys = Object.keys(BOUNDS) as (keyof GatewayLimits)[];
  read.strictKeys(section, keys, path);
  const out: Record<string, number> = { ...DEFAULT_GATEWAY_LIMITS };
  for (const key of keys) {
    const [min, max] = BOUNDS[key];
    if (section[key] !== undefined) out[key] = read.integer(section[key], min, max, childPath(path, key));
  }
  const limits = out as unknown as GatewayLimits;
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    read.fail(childPath(path, 'requestTimeoutMs'), `must be at least headersTimeoutMs (${limits.headersTimeoutMs}): the request includes its headers`);
  }
  if (limits.sessionsPerPrincipal > limits.maxSessions) {
    read.fail(childPath(path, 'sessionsPerPrincipal'), `must be at most maxSessions (${limits.maxSessions})`);
  }
  return Object.freeze(limits);
}
