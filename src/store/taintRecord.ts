/**
 * Reading taint back from a store (the SQLite snapshot, Redis): a source or secret origin that
 * is not what was written is refused rather than read half (the caller fails closed with
 * `ERR_MCP_STORE_CORRUPT`; taint that cannot be read is never taken as no taint).
 *
 * @module
 */
import { LABELS } from '../host/policy/labels.js';
import type { SecretOrigin, TaintSource } from '../host/policy/taint.js';

/** `value` as a taint source, or undefined when it is not one. */
export function taintSourceFrom(value: unknown): TaintSource | undefined {
  const o = value as Partial<Record<keyof TaintSource, unknown>> | null;
  if (o === null || typeof o !== 'object' || !(LABELS as readonly unknown[]).includes(o.label) || typeof o.server !== 'string' || (o.tool !== undefined && o.tool !== null && typeof o.tool !== 'string') || typeof o.at !== 'number' || typeof o.via !== 'string') return undefined;
  return { label: o.label as TaintSource['label'], server: o.server, tool: typeof o.tool === 'string' ? o.tool : undefined, at: o.at, via: o.via };
}

/** `value` as where a secret came from, or undefined when it is not one. */
export function secretOriginFrom(value: unknown): SecretOrigin | undefined {
  const o = value as Partial<Record<keyof SecretOrigin, unknown>> | null;
  if (o === null || typeof o !== 'object' || typeof o.server !== 'string' || (o.tool !== undefined && o.tool !== null && typeof o.tool !== 'string') || typeof o.at !== 'number') return undefined;
  return { server: o.server, tool: typeof o.tool === 'string' ? o.tool : undefined, at: o.at };
}
