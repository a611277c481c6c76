/**
 * `switchboard audit tail | verify | export`: the person's view of the gateway's audit log
 * (`<stateDir>/audit.db`, written by the gateway's audit interceptor).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { loadConfig } from './hostSetup.js';
import { auditSubject, type AuditReader, type AuditRecord } from '../host/audit.js';
import { SqliteAuditLog, type AuditProcess, type SqliteAuditOptions } from '../store/sqliteAudit.js';
import type { HostConfig } from '../host/configTypes.js';
import { CliFailure, parseArgs, UsageError } from './args.js';
import { emitAuditRecords } from '../host/auditTelemetry.js';
import { registeredLoggerProvider } from '../protocol/telemetry.js';
import { loadTelemetry } from './telemetrySetup.js';

/** Help text of `audit`. */
export const auditHelp = `Usage: switchboard audit <tail|verify|export> [--config FILE] [--file DB] [options]

Reads the gateway's tamper-evident audit log (one hash-chained record per request: time,
principal, server, tool, argument digest, decisions with their rule ids, outcome, latency).

  tail [-n N | --lines N]  print the newest N records (default 20), one line each
  verify                   re-compute every hash and link; exit 1 and name each record that was
                           edited, deleted, inserted or reordered; prints the head hash
  export [--from SEQ]      print records as JSON lines (JSONL), oldest first
  export --telemetry F     instead emit them as OpenTelemetry log records: import the ES module F
                           (as gateway --telemetry does), which registers a LoggerProvider; flush
                           and shut it down after; print how many records were emitted
  --config FILE            the gateway config whose stateDir holds audit.db (default ./switchboard.json)
  --file DB                the audit database itself (instead of --config)
  --store URL              the PostgreSQL audit log of several instances (postgres://...; default:
                           the config's switchboard.store when set): verify checks the whole chain
  --json                   tail and verify print JSON
`;

/** The {@link SqliteAuditLog} options of a config's `switchboard.audit`. */
export function auditStoreOptions(config: Pick<HostConfig, 'auditDurability' | 'auditSyncIntervalMs'>): SqliteAuditOptions {
  return { durability: config.auditDurability, process: THIS_PROCESS, ...(config.auditSyncIntervalMs !== undefined ? { syncIntervalMs: config.auditSyncIntervalMs } : {}) };
}

/**
 * This process, as the audit log's pending files need it (`batch`: each open also commits what
 * a killed gateway left in its file). Signal 0 tells whether another pid runs: `EPERM` means it
 * exists but is not ours to signal.
 */
export const THIS_PROCESS: AuditProcess = {
  pid: process.pid,
  isRunning(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as { code?: unknown }).code === 'EPERM';
    }
  },
};

/** The audit database of a state folder. */
export function auditFile(stateDir: string): string {
  return join(stateDir, 'audit.db');
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** One human line of a record. */
export function formatAuditRecord(r: AuditRecord): string {
  const decided = r.decisions.length > 0 ? ` [${r.decisions.map((d) => `${d.interceptor}:${d.outcome}`).join(', ')}]` : '';
  const error = r.error !== undefined ? ` (${r.error})` : '';
  return `#${r.seq} ${r.time} ${auditSubject(r)} -> ${r.outcome}${error} ${r.latencyMs} ms${decided}`;
}

/** Runs `audit`; resolves with the exit code. */
export async function auditCommand(argv: readonly string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb !== 'tail' && verb !== 'verify' && verb !== 'export') throw new UsageError(verb === undefined ? 'say tail, verify or export' : `unknown audit command ${JSON.stringify(verb)}`);
  const normalised = rest.map((a) => (a === '-n' ? '--lines' : a));
  const { options, positionals } = parseArgs(normalised, { config: 'string', file: 'string', store: 'string', lines: 'string', from: 'string', json: 'boolean', telemetry: 'string' });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const telemetry = typeof options['telemetry'] === 'string' ? options['telemetry'] : undefined;
  if (telemetry !== undefined && verb !== 'export') throw new UsageError('--telemetry goes with export');
  const log = await openReader(options);
  try {
    if (verb === 'tail') {
      const count = options['lines'] === undefined ? 20 : positiveInteger(options['lines'], '--lines');
      for (const r of await log.tail(count)) out(options['json'] === true ? JSON.stringify(r) : formatAuditRecord(r));
      return 0;
    }
    if (verb === 'export') {
      const from = options['from'] === undefined ? 1 : positiveInteger(options['from'], '--from');
      if (telemetry !== undefined) {
        const emitted = await exportTelemetry(log, from, telemetry);
        out(`emitted ${emitted} audit record${emitted === 1 ? '' : 's'} as OpenTelemetry log records`);
        return 0;
      }
      for await (const page of pages(log, from)) for (const r of page) out(JSON.stringify(r));
      return 0;
    }
    const report = await log.verify();
    if (options['json'] === true) out(JSON.stringify(report));
    else {
      for (const p of report.problems) out(`record ${p.seq}: ${p.problem}`);
      out(`${report.ok ? 'intact' : 'TAMPERED'}: ${report.records} records, head ${report.head}`);
    }
    return report.ok ? 0 : 1;
  } finally {
    await log.close();
  }
}

/** The records from `from` on, a page at a time. */
async function* pages(log: AuditReader, from: number): AsyncGenerator<AuditRecord[]> {
  for (let next = from; ; ) {
    const page = await log.read({ from: next, limit: 1000 });
    if (page.length > 0) yield page;
    const last = page.at(-1);
    if (last === undefined || page.length < 1000) return;
    next = last.seq + 1;
  }
}

/**
 * `export --telemetry`: imports the SDK setup module, emits the records from `from` on to the
 * logger provider it registered, then flushes and shuts the provider down when it can.
 */
async function exportTelemetry(log: AuditReader, from: number, file: string): Promise<number> {
  await loadTelemetry(file);
  const provider = registeredLoggerProvider();
  if (provider === undefined) throw new CliFailure(`--telemetry ${file} registered no OpenTelemetry LoggerProvider (logs.setGlobalLoggerProvider, or an SDK with a log record processor); nothing was emitted`);
  let emitted = 0;
  for await (const page of pages(log, from)) emitted += emitAuditRecords(provider, page);
  const sdk = provider as { forceFlush?: () => Promise<unknown>; shutdown?: () => Promise<unknown> };
  if (typeof sdk.forceFlush === 'function') await sdk.forceFlush();
  if (typeof sdk.shutdown === 'function') await sdk.shutdown();
  return emitted;
}

/** The audit log named by --store, --file or the config (its store, else its state folder's file). */
async function openReader(options: Readonly<Record<string, unknown>>): Promise<AuditReader & { close(): Promise<void> }> {
  let store = typeof options['store'] === 'string' ? options['store'] : undefined;
  let file = typeof options['file'] === 'string' ? resolvePath(options['file']) : undefined;
  if (store === undefined && file === undefined) {
    const config = await loadConfig(resolvePath(typeof options['config'] === 'string' ? options['config'] : 'switchboard.json'));
    store = config.store;
    file = auditFile(config.stateDir);
  }
  if (store !== undefined) {
    const [{ PgDatabase }, { PgAuditLog }] = await Promise.all([import('../store/postgres/pgDatabase.js'), import('../store/postgres/pgAuditLog.js')]);
    const db = await PgDatabase.open(store).catch((error: unknown) => {
      throw new CliFailure(error instanceof Error ? error.message : String(error));
    });
    const log = new PgAuditLog(db);
    return { read: (o) => log.read(o), tail: (n) => log.tail(n), verify: () => log.verify(), close: () => db.close() };
  }
  const path = file as string;
  if (!existsSync(path)) throw new CliFailure(`no audit log at ${path} (the gateway writes it on its first request)`);
  // Opening commits what a killed gateway answered but left in its pending file.
  return SqliteAuditLog.open(path, { process: THIS_PROCESS });
}

function positiveInteger(value: unknown, name: string): number {
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < 1) throw new UsageError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}
