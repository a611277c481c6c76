// @ts-check
/**
 * Tools: every tool the gateway exposes with its namespaced name, server, trust level,
 * scanner verdict and findings (with their evidence, as text), and labels; then what the
 * gateway withholds and why. Reloads on a `changed` event.
 *
 * @module
 */
import { html, useState } from '../lib/html.js';
import { href } from '../lib/route.js';
import { useApi } from '../lib/useApi.js';
import { Badge } from '../components/badge.js';
import { Table } from '../components/table.js';
import { Notice, Reveal } from '../components/text.js';

/** @typedef {{ rule: string, family?: string, severity: string, confidence?: string, blocking?: boolean, message: string, evidence?: string }} Finding */
/** @typedef {{ label: string, origin: string, why?: string }} Label */
/**
 * @typedef {{ name: string, server: string, ownName: string, title?: string, description?: string, trust: string | null,
 *   keyThumbprint?: string, verdict: string | null, findings: Finding[], labels: Label[] }} ToolRow
 */
/** @typedef {{ server: string, kind: string, name: string, exposedName?: string, reason: string }} Withheld */

/** The Tools page. */
export function Tools() {
  const { data, error } = /** @type {import('../lib/useApi.js').Loaded<{ tools: ToolRow[], withheld: Withheld[] }>} */ (useApi('tools', ['tools', 'servers', 'pins', 'withheld']));
  const [filter, setFilter] = useState('');
  if (data === undefined) return html`<h1 id="page-title">Tools</h1>${error !== '' ? html`<${Notice} kind="error">${error}<//>` : html`<p role="status">Loading…</p>`}`;
  const needle = filter.trim().toLowerCase();
  const tools = data.tools.filter((t) => needle === '' || `${t.name} ${t.server} ${t.description ?? ''}`.toLowerCase().includes(needle));
  return html`<h1 id="page-title">Tools</h1>
    <p class="lede">What the agent sees through the gateway. Names, descriptions and evidence are the servers' own text, shown as text.</p>
    <div class="row">
      <div class="field">
        <label for="tool-filter">Filter tools</label>
        <input id="tool-filter" type="search" value=${filter} onInput=${(/** @type {Event} */ e) => setFilter(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      </div>
    </div>
    <${Table}
      caption=${`Exposed tools (${tools.length})`}
      testId="tools"
      rows=${tools}
      rowKey=${(/** @type {ToolRow} */ t) => t.name}
      empty="No tools."
      columns=${[
        {
          label: 'Tool',
          cell: (/** @type {ToolRow} */ t) => html`<code><${Reveal} text=${t.name} /></code>
            ${t.description !== undefined ? html`<div class="description"><${Reveal} text=${t.description} /></div>` : null}`,
        },
        { label: 'Server', cell: (/** @type {ToolRow} */ t) => html`<a href=${href('inspector', t.server)}><${Reveal} text=${t.server} /></a>` },
        { label: 'Trust', cell: (/** @type {ToolRow} */ t) => html`<${Badge} value=${t.trust ?? 'pins off'} />${t.keyThumbprint !== undefined ? html`<div class="hint mono"><${Reveal} text=${t.keyThumbprint} /></div>` : null}` },
        {
          label: 'Scanner',
          cell: (/** @type {ToolRow} */ t) => html`<${Badge} value=${t.verdict ?? 'not scanned'} />
            ${t.findings.length > 0
              ? html`<ul class="findings">${t.findings.map(
                  (f) => html`<li><${Badge} value=${f.severity} /> <strong><${Reveal} text=${f.rule} /></strong>: <${Reveal} text=${f.message} />
                    ${f.evidence !== undefined ? html`<div>Evidence: <q class="evidence"><${Reveal} text=${f.evidence} /></q></div>` : null}</li>`,
                )}</ul>`
              : null}`,
        },
        {
          label: 'Labels',
          cell: (/** @type {ToolRow} */ t) =>
            t.labels.length === 0 ? html`<span class="hint">none</span>` : html`<span class="tags">${t.labels.map((l) => html`<span class="badge badge-neutral" title=${`${l.origin}${l.why !== undefined ? `: ${l.why}` : ''}`}>${l.label}</span>`)}</span>`,
        },
      ]}
    />
    <h2>Withheld</h2>
    <${Table}
      caption="Items the gateway does not expose"
      testId="withheld"
      rows=${data.withheld}
      empty="Nothing withheld."
      columns=${[
        { label: 'Server', cell: (/** @type {Withheld} */ w) => w.server },
        { label: 'Kind', cell: (/** @type {Withheld} */ w) => w.kind },
        { label: 'Name', cell: (/** @type {Withheld} */ w) => w.exposedName ?? w.name },
        { label: 'Why', cell: (/** @type {Withheld} */ w) => w.reason },
      ]}
    />`;
}
