/**
 * Audit records as OpenTelemetry log records: {@link emittingAuditLog} wraps an {@link AuditLog}
 * so that, when an application registered a logger provider (`logs.setGlobalLoggerProvider`, or
 * an SDK set up by `switchboard gateway --telemetry`), every record is also emitted once it is
 * durable, never before. The emitted record is the stored one: its seq, hash and prev, and
 * (wrapped around a redacting log) the redacted text.
 *
 * - Attributes under `switchboard.audit.*` ({@link auditLogRecord}); severity by outcome (`ok`
 *   INFO, `tool-error` and `denied` WARN, `error` ERROR); the body a one-line summary; the
 *   timestamp the record's time; the event name `switchboard.audit.record`.
 * - An emitter that throws is reported (once per failure kind) and otherwise ignored: the
 *   append, the call and the chain are as they would be without it.
 * - With no provider registered when the log is wrapped, the log is returned as it is (no cost).
 *
 * @see https://opentelemetry.io/docs/specs/otel/logs/data-model/
 * @module
 */
import type { LogAttributes, Logger as OtelLogger, LoggerProvider, LogRecord, SeverityNumber } from '@opentelemetry/api-logs';
import { registeredLoggerProvider } from '../protocol/telemetry.js';
import { describeError } from '../util/errors.js';
import { auditSubject, forwardAnnouncements, type AuditLog, type AuditOutcome, type AuditRecord } from './audit.js';

/** The instrumentation scope of the audit logger. */
export const AUDIT_LOGGER_SCOPE = 'switchboard.audit';

/** The event name of every emitted record. */
export const AUDIT_EVENT_NAME = 'switchboard.audit.record';

/** The OpenTelemetry severity of each outcome (the logs data model's numbers and texts). */
const SEVERITY: Readonly<Record<AuditOutcome, { readonly number: SeverityNumber; readonly text: string }>> = {
  ok: { number: 9 as SeverityNumber, text: 'INFO' },
  'tool-error': { number: 13 as SeverityNumber, text: 'WARN' },
  denied: { number: 13 as SeverityNumber, text: 'WARN' },
  error: { number: 17 as SeverityNumber, text: 'ERROR' },
};

/** The one-line summary used as the log body (`#7 tools/call notes notes__read by alice -> ok`). */
export function auditSummary(r: AuditRecord): string {
  const error = r.error !== undefined ? ` (${r.error})` : '';
  return `#${r.seq} ${auditSubject(r)} -> ${r.outcome}${error}`;
}

/** The rule ids a record's decisions name (`detail.rule`, `detail.rules`), each once, in order. */
function ruleIds(r: AuditRecord): string[] {
  const ids = new Set<string>();
  for (const d of r.decisions) {
    const rule = d.detail?.['rule'];
    if (typeof rule === 'string') ids.add(rule);
    const rules = d.detail?.['rules'];
    if (Array.isArray(rules)) for (const id of rules) if (typeof id === 'string') ids.add(id);
  }
  return [...ids];
}

/** The OpenTelemetry log record of a stored audit record (see the module comment). */
export function auditLogRecord(r: AuditRecord): LogRecord {
  const attributes: LogAttributes = {
    'switchboard.audit.seq': r.seq,
    'switchboard.audit.hash': r.hash,
    'switchboard.audit.prev': r.prev,
    'switchboard.audit.kind': r.kind,
    'switchboard.audit.method': r.method,
    'switchboard.audit.outcome': r.outcome,
    'switchboard.audit.latency_ms': r.latencyMs,
    'switchboard.audit.decisions': r.decisions.map((d) => `${d.interceptor}:${d.outcome}`),
    'switchboard.audit.rule_ids': ruleIds(r),
  };
  const optional: readonly [string, string | undefined][] = [
    ['switchboard.audit.server_method', r.serverMethod],
    ['switchboard.audit.principal', r.principal],
    ['switchboard.audit.session', r.session],
    ['switchboard.audit.server', r.server],
    ['switchboard.audit.name', r.name],
    ['switchboard.audit.arguments_digest', r.argumentsDigest],
    ['switchboard.audit.error', r.error],
  ];
  for (const [key, value] of optional) if (value !== undefined) attributes[key] = value;
  const severity = SEVERITY[r.outcome] ?? SEVERITY.error;
  return { eventName: AUDIT_EVENT_NAME, timestamp: new Date(r.time), severityNumber: severity.number, severityText: severity.text, body: auditSummary(r), attributes };
}

/** Emits `records` to `provider`'s audit logger; resolves with how many were emitted (a throwing emitter throws here). */
export function emitAuditRecords(provider: LoggerProvider, records: Iterable<AuditRecord>): number {
  const logger = provider.getLogger(AUDIT_LOGGER_SCOPE);
  let emitted = 0;
  for (const r of records) {
    logger.emit(auditLogRecord(r));
    emitted++;
  }
  return emitted;
}

/** Options of {@link emittingAuditLog}. */
export interface EmittingAuditLogOptions {
  /** The provider (tests). Default: the registered one ({@link registeredLoggerProvider}), looked up once. */
  readonly provider?: LoggerProvider;
  /** Told when emitting fails (once per distinct message). Default: nothing. */
  readonly onError?: (message: string) => void;
}

/**
 * `inner`, also emitting each record it stored as an OpenTelemetry log record (see the module
 * comment); `inner` itself when no logger provider is registered.
 */
export function emittingAuditLog(inner: AuditLog, options: EmittingAuditLogOptions = {}): AuditLog {
  const provider = options.provider ?? registeredLoggerProvider();
  if (provider === undefined) return inner;
  let logger: OtelLogger | undefined;
  const reported = new Set<string>();
  const emit = (record: AuditRecord): void => {
    try {
      logger ??= provider.getLogger(AUDIT_LOGGER_SCOPE);
      logger.emit(auditLogRecord(record));
    } catch (error) {
      const message = `emitting audit record ${record.seq} as an OpenTelemetry log record failed: ${describeError(error)}`;
      const kind = describeError(error);
      if (!reported.has(kind)) {
        reported.add(kind);
        try {
          options.onError?.(message);
        } catch {
          // A failing reporter must not fail the call either.
        }
      }
    }
  };
  return {
    async append(entry, announced) {
      const record = await inner.append(entry, announced);
      emit(record);
      return record;
    },
    get problem() {
      return inner.problem;
    },
    ...forwardAnnouncements(inner),
  };
}
