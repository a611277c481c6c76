// @ts-check
/**
 * Overview: the gateway, its servers (state, transport, era, tool counts, quarantined and scanner-blocked counts, restarts, recent
 * errors), and calls per second and latency per server over the last minutes as two SVG
 * charts. New metric buckets arrive as `metrics` events while the page is open; the server
 * list reloads on a `changed` event (no polling).
 *
 * @module
 */
import { subscribe } from '../lib/api.js';
import { html, useEffect, useState } from '../lib/html.js';
import { href } from '../lib/route.js';
import { useApi } from '../lib/useApi.js';
import { Badge } from '../components/badge.js';
import { LineChart } from '../components/chart.js';
import { Table } from '../components/table.js';
import { Notice, Reveal, formatTime } from '../components/text.js';

/** @typedef {{ start: number, calls: number, errors: number, avgMs: number | null, maxMs: number | null }} Bucket */
/** @typedef {{ at: number, method: string, name?: string, error: string }} RecentError */
/**
 * @typedef {{ id: string, state: string, transport: string, era: string | null, protocolVersion: string | null,
 *   serverInfo: { name: string, version: string } | null, counts: Record<string, number>, restarts: number, failures: number,
 *   crashLooping: boolean, lastError?: string, problem?: string, recentErrors: RecentError[] }} ServerRow
 */
/**
 * @typedef {{ gateway: { version: string, transport: string, url: string | null, startedAt: string, audit: string, auditProblem?: string, pins: boolean, consentQueue: boolean },
 *   servers: ServerRow[], pendingLaunches?: string[], metrics: { bucketMs: number, buckets: number, series: Record<string, Bucket[]> } }} OverviewData
 */

/** The Overview page. */
export function Overview() {
  const { data, error } = /** @type {import('../lib/useApi.js').Loaded<OverviewData>} */ (useApi('overview', ['servers', 'tools', 'pins']));
  const [series, setSeries] = useState(/** @type {Record<string, Bucket[]>} */ ({}));
  useEffect(() => {
    if (data !== undefined) setSeries(data.metrics.series);
  }, [data]);
  useEffect(
    () =>
      subscribe({
        metrics: (/** @type {{ at: number, servers: Record<string, Bucket> }} */ batch) =>
          setSeries((old) => {
            const keep = data?.metrics.buckets ?? 30;
            /** @type {Record<string, Bucket[]>} */
            const next = {};
            for (const id of new Set([...Object.keys(old), ...Object.keys(batch.servers ?? {})])) {
              const add = batch.servers?.[id];
              next[id] = [...(old[id] ?? []), ...(add === undefined ? [] : [add])].slice(-keep);
            }
            return next;
          }),
      }),
    [data],
  );
  if (data === undefined) return html`<h1 id="page-title">Overview</h1>${error !== '' ? html`<${Notice} kind="error">${error}<//>` : html`<p role="status">Loading…</p>`}`;
  const bucketSeconds = (data.metrics.bucketMs || 10000) / 1000;
  const names = Object.keys(series).sort();
  const rate = names.map((name) => ({ name, points: (series[name] ?? []).map((b) => ({ t: b.start, v: b.calls / bucketSeconds })) }));
  const latency = names.map((name) => ({ name, points: (series[name] ?? []).map((b) => ({ t: b.start, v: b.avgMs ?? 0 })) }));
  const g = data.gateway;
  return html`<h1 id="page-title">Overview</h1>
    <p class="lede">Gateway ${g.version} over ${g.transport}${g.url !== null ? html`, MCP endpoint <code>${g.url}</code>` : null}, up since ${formatTime(g.startedAt)}.
      Audit ${g.audit}${g.auditProblem !== undefined ? html` (<${Reveal} text=${g.auditProblem} />)` : null}; pins ${g.pins ? 'on' : 'off'}; consent queue ${g.consentQueue ? 'on' : 'off'}.</p>
    ${(data.pendingLaunches ?? []).length > 0
      ? html`<${Notice} kind="warn">${`${(data.pendingLaunches ?? []).length} local server${(data.pendingLaunches ?? []).length === 1 ? '' : 's'} not started: the launch waits for your approval (`}${(data.pendingLaunches ?? []).map((id, i) => html`${i > 0 ? ', ' : ''}<${Reveal} text=${id} />`)}). <a href=${href('review')}>Review the launch</a>.<//>`
      : null}
    <section aria-labelledby="servers-title">
      <h2 id="servers-title">Servers</h2>
      <${Table}
        caption="Downstream servers"
        testId="servers"
        rows=${data.servers}
        rowKey=${(/** @type {ServerRow} */ s) => s.id}
        empty=${(data.pendingLaunches ?? []).length > 0 ? 'No server runs yet: every launch waits for approval (see above).' : 'No servers configured.'}
        columns=${[
          { label: 'Server', cell: (/** @type {ServerRow} */ s) => html`<a href=${href('inspector', s.id)}><${Reveal} text=${s.id} /></a>${s.serverInfo !== null ? html`<div class="hint"><${Reveal} text=${`${s.serverInfo.name} ${s.serverInfo.version}`} /></div>` : null}` },
          { label: 'Health', cell: (/** @type {ServerRow} */ s) => html`<${Badge} value=${s.state} />${s.crashLooping ? html` <${Badge} value="crash loop" />` : null}${s.problem !== undefined ? html`<div><${Reveal} text=${s.problem} /></div>` : null}` },
          { label: 'Transport', cell: (/** @type {ServerRow} */ s) => s.transport },
          { label: 'Era', cell: (/** @type {ServerRow} */ s) => `${s.era ?? '—'}${s.protocolVersion !== null ? ` (${s.protocolVersion})` : ''}` },
          { label: 'Tools', className: 'num', cell: (/** @type {ServerRow} */ s) => String(s.counts['tools'] ?? 0) },
          { label: 'Prompts · resources', className: 'num', cell: (/** @type {ServerRow} */ s) => `${s.counts['prompts'] ?? 0} · ${s.counts['resources'] ?? 0}` },
          { label: 'Quarantined', className: 'num', cell: (/** @type {ServerRow} */ s) => String(s.counts['withheld'] ?? 0) },
          { label: 'Scanner-blocked', className: 'num', cell: (/** @type {ServerRow} */ s) => String(s.counts['scannerBlocked'] ?? 0) },
          { label: 'Restarts', className: 'num', cell: (/** @type {ServerRow} */ s) => String(s.restarts) },
          {
            label: 'Recent errors',
            cell: (/** @type {ServerRow} */ s) =>
              s.recentErrors.length === 0 && s.lastError === undefined
                ? html`<span class="hint">none</span>`
                : html`<ul class="errors">${s.lastError !== undefined ? html`<li><${Reveal} text=${s.lastError} /></li>` : null}
                    ${s.recentErrors.slice(0, 3).map((e) => html`<li><time>${formatTime(e.at)}</time> ${e.method}${e.name !== undefined ? html` <code><${Reveal} text=${e.name} /></code>` : null}: <${Reveal} text=${e.error} /></li>`)}</ul>`,
          },
        ]}
      />
    </section>
    <section aria-labelledby="traffic-title">
      <h2 id="traffic-title">Traffic, last ${Math.round(((data.metrics.buckets || 30) * bucketSeconds) / 60)} minutes</h2>
      <div class="grid">
        <${LineChart} title="Calls per second" unit="calls/s" series=${rate} testId="chart-rate" />
        <${LineChart} title="Average latency" unit="ms" series=${latency} testId="chart-latency" />
      </div>
    </section>`;
}
