/**
 * `switchboard audit tail | verify | export | checkpoint | archive`: the person's view of the
 * gateway's audit log (`<stateDir>/audit.db`, written by the gateway's audit interceptor).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { configFileOption } from '../userFolder.js';
import { loadConfig } from '../hostSetup.js';
import type { AuditReader, AuditRecord } from '../../host/audit.js';
import { SqliteAuditLog } from '../../store/sqliteAudit.js';
import { AuditTable } from '../../store/sqliteAuditTable.js';
import type { ArchivableLog } from '../../store/auditArchive.js';
import { archiveFindings, runArchive } from '../auditArchiveCommand.js';
import { CliFailure, UsageError } from '../args.js';
import { THIS_PROCESS, auditFile, formatAuditRecord } from '../auditFiles.js';
import { emitAuditRecords } from '../../host/auditTelemetry.js';
import { registeredLoggerProvider } from '../../protocol/telemetry.js';
import { loadTelemetry } from '../telemetrySetup.js';
import { defineCommand, type ParsedCommand } from '../command.js';
import { anchorFindings, exportCheckpoint } from '../auditAnchorCheck.js';
import { postgresStoreName, storeFileName } from '../stateAnchors.js';
import { counted } from '../../util/plural.js';

/** `switchboard audit`. */
export const command = defineCommand({
  name: 'audit',
  summary: "read, verify and archive the gateway's tamper-evident audit log (tail, verify, export, checkpoint, archive)",
  usage: ['<tail|verify|export|checkpoint> [--config FILE] [--file DB] [options]', 'archive --before <SEQ|TIME> --out DIR [--config FILE] [--file DB] [--segment-records N]'],
  description: `Reads the gateway's tamper-evident audit log (one hash-chained record per request: time,
principal, server, tool, argument digest, decisions with their rule ids, outcome, latency).`,
  positionals: [
    { name: 'tail', description: 'print the newest N records (--lines, default 20), one line each' },
    {
      name: 'verify',
      description:
        're-compute every hash and link (of an archived log from its prune marker, which must match the keyed checkpoint of the archive: a removed range without one is a gap), and check the log still holds its anchored record (a truncated tail, an emptied, replaced or re-chained log) and with --checkpoint a witness\'s signed one; with --archive DIR also every archived segment and the links between them and to the live log (naming each missing, altered or extra segment); exit 1 and name each problem; prints the head hash',
    },
    {
      name: 'archive',
      description:
        'move the records before --before (a record number, or an ISO 8601 time) into sealed segments in --out DIR: gzip\'d JSONL with a manifest keyed with the anchor key; each copy is synced and read back before the records leave the live log (SQLite or PostgreSQL). The head and the anchored record stay live. A re-run after a crash reuses what was sealed',
    },
    { name: 'export', description: 'print records as JSON lines (JSONL), oldest first (from --from SEQ); with --telemetry, emit them as OpenTelemetry log records' },
    { name: 'checkpoint', description: 'print the signed head (record number, hash, time; Ed25519, public key included) for an external witness to keep' },
  ],
  options: {
    lines: { type: 'string', short: 'n', value: 'N', description: 'tail: how many records', default: '20' },
    from: { type: 'string', value: 'SEQ', description: 'export: the first record', default: '1' },
    telemetry: {
      type: 'string',
      value: 'F',
      description:
        'export: instead emit the records as OpenTelemetry log records: import the ES module F (as gateway --telemetry does), which registers a LoggerProvider; flush and shut it down after; print how many records were emitted',
    },
    config: { type: 'string', value: 'FILE', description: 'the gateway config whose stateDir holds audit.db', default: "./switchboard.json, else the running gateway's, else the per-user one" },
    file: { type: 'string', value: 'DB', description: 'the audit database itself (instead of --config)' },
    store: {
      type: 'string',
      value: 'URL',
      description: "the PostgreSQL audit log of several instances (postgres://...): verify checks the whole chain",
      default: "the config's switchboard.store when set",
    },
    checkpoint: { type: 'string', value: 'FILE', description: 'verify: also check the log still holds the record of this signed checkpoint (a witness\'s copy)' },
    archive: { type: 'string', value: 'DIR', description: 'verify: also check the archive in DIR (every segment, and the links from record 1 to the live log)' },
    before: { type: 'string', value: 'SEQ|TIME', description: 'archive: archive the records before this record number, or before this time (ISO 8601)' },
    out: { type: 'string', value: 'DIR', description: 'archive: the archive folder (created with mode 0700)' },
    'segment-records': { type: 'string', value: 'N', description: 'archive: most records per segment', default: '100000' },
    json: { type: 'boolean', description: 'tail, verify and archive print JSON' },
  },
  run: runAudit,
});

const out = (line: string): void => void process.stdout.write(`${line}\n`);

/** Runs `audit`; resolves with the exit code. */
async function runAudit({ options, positionals }: ParsedCommand): Promise<number> {
  const [verb, ...rest] = positionals;
  if (verb !== 'tail' && verb !== 'verify' && verb !== 'export' && verb !== 'checkpoint' && verb !== 'archive') throw new UsageError(verb === undefined ? 'say tail, verify, export, checkpoint or archive' : `unknown audit command ${JSON.stringify(verb)}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const telemetry = typeof options['telemetry'] === 'string' ? options['telemetry'] : undefined;
  if (telemetry !== undefined && verb !== 'export') throw new UsageError('--telemetry goes with export');
  const checkpointFile = typeof options['checkpoint'] === 'string' ? options['checkpoint'] : undefined;
  if (checkpointFile !== undefined && verb !== 'verify') throw new UsageError('--checkpoint goes with verify');
  const archiveDir = typeof options['archive'] === 'string' ? options['archive'] : undefined;
  if (archiveDir !== undefined && verb !== 'verify') throw new UsageError('--archive goes with verify (archive writes to --out)');
  for (const option of ['before', 'out', 'segment-records']) if (options[option] !== undefined && verb !== 'archive') throw new UsageError(`--${option} goes with archive`);
  const { log, name, archivable } = await openReader(options);
  try {
    if (verb === 'archive') return await runArchive(archivable, name, options, out);
    if (verb === 'checkpoint') {
      out(JSON.stringify(await exportCheckpoint(log, name)));
      return 0;
    }
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
    const chain = await log.verify();
    const archived = await archiveFindings(archivable, name, archiveDir);
    const anchored = await anchorFindings(log, name, checkpointFile, archived.archived);
    const problems = [...chain.problems, ...anchored.problems, ...archived.problems];
    const report = { ...chain, from: archived.from, ok: problems.length === 0, problems, notes: [...anchored.notes, ...archived.notes], ...(archived.archive !== undefined ? { archive: archived.archive } : {}) };
    if (options['json'] === true) out(JSON.stringify(report));
    else {
      for (const p of report.problems) out(`record ${p.seq}: ${p.problem}`);
      const live = report.from > 1 ? `${counted(report.records, 'live record')} (from record ${report.from}${report.archive !== undefined ? `; ${report.archive.records} archived in ${counted(report.archive.segments, 'segment')}` : ''})` : counted(report.records, 'record');
      out(`${report.ok ? 'intact' : 'TAMPERED'}: ${live}, head ${report.head}`);
      for (const note of report.notes) out(note);
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

/** The audit log named by --store, --file or the config (its store, else its state folder's file), and its name in the anchor. */
async function openReader(options: Readonly<Record<string, unknown>>): Promise<{ log: AuditReader & { close(): Promise<void> }; name: string; archivable: ArchivableLog }> {
  let store = typeof options['store'] === 'string' ? options['store'] : undefined;
  let file = typeof options['file'] === 'string' ? resolvePath(options['file']) : undefined;
  if (store === undefined && file === undefined) {
    const config = await loadConfig(await configFileOption(options['config'], true));
    store = config.store;
    file = auditFile(config.stateDir);
  }
  if (store !== undefined) {
    const [{ PgDatabase }, { PgAuditLog }] = await Promise.all([import('../../store/postgres/pgDatabase.js'), import('../../store/postgres/pgAuditLog.js')]);
    const db = await PgDatabase.open(store).catch((error: unknown) => {
      throw new CliFailure(error instanceof Error ? error.message : String(error));
    });
    const log = new PgAuditLog(db);
    return { log: { read: (o) => log.read(o), tail: (n) => log.tail(n), verify: () => log.verify(), close: () => db.close() }, name: postgresStoreName(store), archivable: log };
  }
  const path = file as string;
  if (!existsSync(path)) throw new CliFailure(`no audit log at ${path} (the gateway writes it on its first request)`);
  // Opening commits what a killed gateway answered but left in its pending file.
  const log = SqliteAuditLog.open(path, { process: THIS_PROCESS });
  // The archiver's own connection to the file (the log's is busy with nothing meanwhile).
  const table = AuditTable.open(path);
  const close = async (): Promise<void> => {
    table.close();
    await log.close();
  };
  return { log: { read: (o) => log.read(o), tail: (n) => log.tail(n), verify: () => log.verify(), close }, name: storeFileName(path), archivable: table };
}

function positiveInteger(value: unknown, name: string): number {
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < 1) throw new UsageError(`${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}
