/**
 * The console's audit routes: the records, newest first, filtered (principal, server, tool,
 * outcome, decision, kind, time range) and paged by sequence number; the chain check (which
 * record is broken); and an NDJSON export of the filtered records, oldest first.
 *
 * @module
 */
import type { AuditReader, AuditRecord } from '../host/audit.js';
import type { HttpResponseLike } from '../transport/http/server/types.js';
import { ConsoleRequestError, failure, json } from './consoleResponses.js';
import type { RouteContext } from './consoleTypes.js';

const CHUNK = 500;
/** Records a page request reads at most (a filter that matches rarely pages on from where it stopped). */
const MAX_SCAN = 20_000;

/** The filters of the query string. */
export interface AuditFilter {
  readonly principal?: string;
  readonly server?: string;
  readonly tool?: string;
  readonly outcome?: string;
  readonly decision?: string;
  readonly kind?: string;
  readonly from?: number;
  readonly to?: number;
}

/** Parses the filters; a bad time is a 400. */
export function auditFilter(query: URLSearchParams): AuditFilter {
  const text = (name: string): Record<string, string> => {
    const value = query.get(name);
    return value === null || value === '' ? {} : { [name]: value };
  };
  const time = (name: 'from' | 'to'): Record<string, number> => {
    const value = query.get(name);
    if (value === null || value === '') return {};
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new ConsoleRequestError(400, `"${name}" is not a time (ISO 8601, e.g. 2026-12-02T06:00:00Z)`);
    return { [name]: ms };
  };
  const outcome = query.get('outcome');
  if (outcome !== null && outcome !== '' && !['ok', 'tool-error', 'denied', 'error'].includes(outcome)) throw new ConsoleRequestError(400, '"outcome" is one of ok, tool-error, denied, error');
  return { ...text('principal'), ...text('server'), ...text('tool'), ...text('outcome'), ...text('decision'), ...text('kind'), ...time('from'), ...time('to') };
}

/** True when `r` passes every filter. */
export function matches(r: AuditRecord, f: AuditFilter): boolean {
  if (f.principal !== undefined && r.principal !== f.principal) return false;
  if (f.server !== undefined && r.server !== f.server) return false;
  if (f.tool !== undefined && r.name !== f.tool) return false;
  if (f.outcome !== undefined && r.outcome !== f.outcome) return false;
  if (f.kind !== undefined && r.kind !== f.kind) return false;
  if (f.decision !== undefined && !r.decisions.some((d) => d.outcome === f.decision || d.interceptor === f.decision)) return false;
  if (f.from !== undefined || f.to !== undefined) {
    const at = Date.parse(r.time);
    if (f.from !== undefined && at < f.from) return false;
    if (f.to !== undefined && at > f.to) return false;
  }
  return true;
}

function readerOf(ctx: RouteContext): AuditReader {
  const audit = ctx.options.audit;
  if (audit === undefined) throw new ConsoleRequestError(404, 'the audit log is off on this gateway (switchboard.audit is false)');
  return audit.reader;
}

async function lastSeq(reader: AuditReader): Promise<number> {
  return (await reader.tail(1))[0]?.seq ?? 0;
}

/** `GET audit`: `{ records (newest first), next, total }`. */
export async function auditList(ctx: RouteContext): Promise<HttpResponseLike> {
  const reader = readerOf(ctx);
  const filter = auditFilter(ctx.query);
  const limitText = ctx.query.get('limit');
  const limit = limitText === null || limitText === '' ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) return failure(400, '"limit" is a whole number from 1 to 500');
  const beforeText = ctx.query.get('before');
  const before = beforeText === null || beforeText === '' ? undefined : Number(beforeText);
  if (before !== undefined && (!Number.isInteger(before) || before < 1)) return failure(400, '"before" is a record number (the "next" of the previous page)');
  const total = await lastSeq(reader);
  const records: AuditRecord[] = [];
  let high = Math.min(total, (before ?? total + 1) - 1);
  let scanned = 0;
  let next: number | null = null;
  while (high >= 1) {
    const from = Math.max(1, high - CHUNK + 1);
    const chunk = await reader.read({ from, limit: high - from + 1 });
    for (let i = chunk.length - 1; i >= 0; i--) {
      const r = chunk[i] as AuditRecord;
      if (!matches(r, filter)) continue;
      if (records.length === limit) {
        next = (records.at(-1) as AuditRecord).seq;
        break;
      }
      records.push(r);
    }
    if (next !== null) break;
    scanned += high - from + 1;
    high = from - 1;
    if (scanned >= MAX_SCAN && high >= 1) {
      next = high + 1;
      break;
    }
  }
  return json(200, { records, next, total });
}

/** `GET audit/verify`: the chain check with the first broken record. */
export async function auditVerify(ctx: RouteContext): Promise<HttpResponseLike> {
  const result = await readerOf(ctx).verify();
  const firstBroken = result.problems.reduce<number | null>((min, p) => (min === null || p.seq < min ? p.seq : min), null);
  return json(200, { ...result, firstBroken });
}

/** `GET audit/export`: the filtered records as NDJSON, oldest first. */
export async function auditExport(ctx: RouteContext): Promise<HttpResponseLike> {
  const reader = readerOf(ctx);
  const filter = auditFilter(ctx.query);
  const total = await lastSeq(reader);
  const lines: string[] = [];
  for (let from = 1; from <= total; from += CHUNK) {
    for (const r of await reader.read({ from, limit: CHUNK })) if (matches(r, filter)) lines.push(JSON.stringify(r));
  }
  return {
    status: 200,
    headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'content-disposition': 'attachment; filename="switchboard-audit.ndjson"' },
    body: lines.length === 0 ? '' : `${lines.join('\n')}\n`,
  };
}
