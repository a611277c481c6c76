/**
 * Redaction where text leaves the process: JSON-like values ({@link redactValue}), a
 * {@link Logger} whose every line passes redaction ({@link redactingLogger}), and an
 * {@link AuditLog} whose stored text fields are redacted before they are chained and written
 * ({@link redactingAuditLog}). Arguments are not touched: the audit log keeps only their digest.
 *
 * @module
 */
import type { Logger } from '../../util/logger.js';
import { forwardAnnouncements, type AuditEntry, type AuditLog } from '../audit.js';
import type { Decision } from '../interceptors.js';
import { redactSecrets, type SecretScanOptions } from './findSecrets.js';
import { deepFrozen } from '../../util/deepFrozen.js';

/**
 * `value` with the secrets in every string (not in keys) replaced by `[REDACTED:<rule>]`;
 * unchanged parts keep their identity, and nothing is copied when nothing was found.
 */
export function redactValue<T>(value: T, options: SecretScanOptions = {}, depth = 0): T {
  if (typeof value === 'string') return redactSecrets(value, options).text as T;
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const next = redactValue(item, options, depth + 1);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return (out ?? value) as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = redactValue(item, options, depth + 1);
    if (next !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = next;
  }
  return (out ?? value) as T;
}

/** A logger that redacts secrets in every message and field before `inner` writes it. */
export function redactingLogger(inner: Logger, options: SecretScanOptions = {}): Logger {
  const wrap =
    (write: Logger['info']): Logger['info'] =>
    (message, fields) => {
      const text = redactSecrets(message, options).text;
      if (fields === undefined) write(text);
      else write(text, redactValue(fields, options));
    };
  return { debug: wrap(inner.debug.bind(inner)), info: wrap(inner.info.bind(inner)), warn: wrap(inner.warn.bind(inner)), error: wrap(inner.error.bind(inner)) };
}

/**
 * The entry as it may be stored: the error message, each decision's reason and the name (a
 * tool or prompt name, or a resource URI, which may carry a token: `note://docs/<token>`)
 * redacted with every rule (the entropy detector included, which judges each segment of a
 * path alone); decision details with the provider rules only (details hold digests and ids
 * that look random on purpose). Arguments stay for the log to digest; principal, session and
 * server are ids.
 */
export function redactAuditEntry(entry: AuditEntry, options: SecretScanOptions = {}): AuditEntry {
  return auditRedactor(options)(entry);
}

/** Most names {@link auditRedactor} remembers the redacted form of (the set is cleared when full). */
const MAX_REMEMBERED_NAMES = 1024;

/**
 * {@link redactAuditEntry} with `options` fixed: the provider-rules-only options are made once,
 * a decision that cannot change (frozen all the way down, such as the policy's default allow,
 * recorded on every call) is checked once, and names (tools, prompts, URIs: a small set) are
 * redacted once each. An entry in which nothing is redacted is returned as it is.
 */
function auditRedactor(options: SecretScanOptions): (entry: AuditEntry) => AuditEntry {
  const rulesOnly: SecretScanOptions = { ...options, entropy: false };
  const clean = new WeakSet<Decision>();
  const names = new Map<string, string>();
  const redactName = (name: string): string => {
    let redacted = names.get(name);
    if (redacted === undefined) {
      redacted = redactSecrets(name, options).text;
      if (names.size >= MAX_REMEMBERED_NAMES) names.clear();
      names.set(name, redacted);
    }
    return redacted;
  };
  const redactDecision = (d: Decision): Decision => {
    if (clean.has(d)) return d;
    const reason = d.reason === undefined ? undefined : redactSecrets(d.reason, options).text;
    const detail = d.detail === undefined ? undefined : redactValue(d.detail, rulesOnly);
    if (reason === d.reason && detail === d.detail) {
      if (deepFrozen(d)) clean.add(d);
      return d;
    }
    return { ...d, ...(reason !== undefined ? { reason } : {}), ...(detail !== undefined ? { detail } : {}) };
  };
  return (entry) => {
    let decisions: Decision[] | undefined;
    for (let i = 0; i < entry.decisions.length; i++) {
      const d = entry.decisions[i] as Decision;
      const redacted = redactDecision(d);
      if (redacted !== d) (decisions ??= [...entry.decisions])[i] = redacted;
    }
    const error = entry.error === undefined ? undefined : redactSecrets(entry.error, options).text;
    const name = entry.name === undefined ? undefined : redactName(entry.name);
    if (decisions === undefined && error === entry.error && name === entry.name) return entry;
    return { ...entry, decisions: decisions ?? entry.decisions, ...(error !== undefined ? { error } : {}), ...(name !== undefined ? { name } : {}) };
  };
}

/** An audit log that redacts every entry ({@link redactAuditEntry}) before `inner` stores it. */
export function redactingAuditLog(inner: AuditLog, options: SecretScanOptions = {}): AuditLog {
  const redact = auditRedactor(options);
  return {
    append: (entry, announced) => {
      let redacted: AuditEntry;
      try {
        redacted = redact(entry);
      } catch (error) {
        if (announced === true) inner.withdraw?.();
        throw error;
      }
      return inner.append(redacted, announced);
    },
    get problem() {
      return inner.problem;
    },
    ...forwardAnnouncements(inner),
  };
}
