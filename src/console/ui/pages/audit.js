// @ts-check
/**
 * Audit: the gateway's hash-chained audit log, newest first, with filters (principal, server,
 * tool, decision, outcome, time), paging, "Verify chain" (the server recomputes every hash and
 * the page marks the records that fail), and an NDJSON export of the filtered records.
 *
 * @module
 */
import { API_BASE, api } from '../lib/api.js';
import { html, useEffect, useState } from '../lib/html.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Notice, Reveal, errorText, formatTime } from '../components/text.js';

/**
 * @typedef {{ seq: number, time: string, kind: string, method: string, serverMethod?: string, principal?: string, session?: string,
 *   server?: string, name?: string, decisions: { interceptor: string, outcome: string, reason?: string }[], outcome: string, error?: string, latencyMs: number }} AuditRecord
 */
/** @typedef {{ ok: boolean, records: number, head: string, problems: { seq: number, problem: string }[], firstBroken: number | null }} Verification */

/** The filter fields, in form order: query key, label, input type. */
const FILTERS = /** @type {const} */ ([
  ['principal', 'Principal', 'text'],
  ['server', 'Server', 'text'],
  ['tool', 'Tool', 'text'],
  ['decision', 'Decision', 'text'],
  ['outcome', 'Outcome', 'select'],
  ['from', 'From', 'datetime-local'],
  ['to', 'To', 'datetime-local'],
]);

/** The query string of the filled-in filters (times as ISO). */
function query(/** @type {Record<string, string>} */ filters) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value.trim() === '') continue;
    q.set(key, key === 'from' || key === 'to' ? new Date(value).toISOString() : value.trim());
  }
  return q;
}

/** The Audit page. */
export function Audit() {
  const [filters, setFilters] = useState(/** @type {Record<string, string>} */ (Object.fromEntries(FILTERS.map(([k]) => [k, '']))));
  const [applied, setApplied] = useState(filters);
  const [records, setRecords] = useState(/** @type {AuditRecord[]} */ ([]));
  const [next, setNext] = useState(/** @type {number | null} */ (null));
  const [total, setTotal] = useState(0);
  const [error, setError] = useState('');
  const [verification, setVerification] = useState(/** @type {Verification | null} */ (null));
  const load = async (/** @type {Record<string, string>} */ f, /** @type {number | null} */ before) => {
    const q = query(f);
    if (before !== null) q.set('before', String(before));
    try {
      const page = await api(`audit?${q}`);
      setRecords((old) => (before === null ? page.records : [...old, ...page.records]));
      setNext(page.next);
      setTotal(page.total);
      setError('');
    } catch (e) {
      setError(errorText(e));
    }
  };
  useEffect(() => void load(applied, null), [applied]);
  const verify = async () => {
    try {
      setVerification(await api('audit/verify'));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const broken = new Set((verification?.problems ?? []).map((p) => p.seq));
  return html`<h1 id="page-title">Audit</h1>
    <p class="lede">Every call, answer and decision, hash-chained: a changed or deleted record breaks the chain.</p>
    <form class="card" aria-label="Audit filters" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), setApplied({ ...filters }))}>
      <div class="row">
        ${FILTERS.map(
          ([key, label, type]) => html`<div class="field">
            <label for=${`audit-${key}`}>${label}</label>
            ${type === 'select'
              ? html`<select id=${`audit-${key}`} value=${filters[key]} onChange=${(/** @type {Event} */ e) => setFilters({ ...filters, [key]: /** @type {HTMLSelectElement} */ (e.currentTarget).value })}>
                  ${['', 'ok', 'tool-error', 'denied', 'error'].map((o) => html`<option value=${o}>${o === '' ? 'any' : o}</option>`)}
                </select>`
              : html`<input id=${`audit-${key}`} type=${type} value=${filters[key]} onInput=${(/** @type {Event} */ e) => setFilters({ ...filters, [key]: /** @type {HTMLInputElement} */ (e.currentTarget).value })} />`}
          </div>`,
        )}
        <button type="submit">Apply filters</button>
      </div>
    </form>
    <div class="actions">
      <button type="button" onClick=${verify}>Verify chain</button>
      <a class="button-link" href=${`${API_BASE}audit/export?${query(applied)}`} download="switchboard-audit.ndjson">Export (NDJSON)</a>
    </div>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
    ${verification !== null
      ? verification.ok
        ? html`<${Notice} kind="ok"><span data-testid="verify-result">Chain intact: ${verification.records} ${verification.records === 1 ? 'record' : 'records'}, head <code>${verification.head}</code>.</span><//>`
        : html`<${Notice} kind="error"><span data-testid="verify-result">Chain broken at record #${verification.firstBroken ?? '?'}</span>
            <ul>${verification.problems.map((p) => html`<li>#${p.seq}: <${Reveal} text=${p.problem} /></li>`)}</ul><//>`
      : null}
    <${Table}
      caption=${`Records (${records.length} shown of ${total})`}
      testId="audit"
      rows=${records}
      rowKey=${(/** @type {AuditRecord} */ r) => r.seq}
      rowClass=${(/** @type {AuditRecord} */ r) => (broken.has(r.seq) ? 'broken' : undefined)}
      empty="No records match."
      columns=${[
        { label: '#', className: 'num', cell: (/** @type {AuditRecord} */ r) => html`${r.seq}${broken.has(r.seq) ? html` <${Badge} value="broken" />` : null}` },
        { label: 'Time', cell: (/** @type {AuditRecord} */ r) => formatTime(r.time) },
        { label: 'Kind', cell: (/** @type {AuditRecord} */ r) => `${r.kind} ${r.method}${r.serverMethod !== undefined ? ` (${r.serverMethod})` : ''}` },
        { label: 'Principal', cell: (/** @type {AuditRecord} */ r) => r.principal ?? '' },
        { label: 'Server', cell: (/** @type {AuditRecord} */ r) => r.server ?? '' },
        { label: 'Tool', cell: (/** @type {AuditRecord} */ r) => r.name ?? '' },
        { label: 'Outcome', cell: (/** @type {AuditRecord} */ r) => html`<${Badge} value=${r.outcome} />${r.error !== undefined ? html`<div><${Reveal} text=${r.error} /></div>` : null}` },
        { label: 'Decisions', cell: (/** @type {AuditRecord} */ r) => r.decisions.map((d) => `${d.interceptor}:${d.outcome}${d.reason !== undefined ? ` (${d.reason})` : ''}`).join(', ') },
        { label: 'ms', className: 'num', cell: (/** @type {AuditRecord} */ r) => String(r.latencyMs) },
      ]}
    />
    ${next !== null ? html`<div class="actions"><button type="button" class="secondary" onClick=${() => load(applied, next)}>Load older records</button></div>` : null}`;
}
