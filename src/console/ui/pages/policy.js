// @ts-check
/**
 * Policy: the configured rules and built-in checks, and a dry run: what the policy would
 * decide for a call (server, tool, arguments, principal) without calling or recording anything.
 *
 * @module
 */
import { api } from '../lib/api.js';
import { html, useState } from '../lib/html.js';
import { useApi } from '../lib/useApi.js';
import { Badge } from '../components/badge.js';
import { JsonView } from '../components/json.js';
import { Table } from '../components/table.js';
import { Notice, Reveal, errorText } from '../components/text.js';

/** @typedef {{ id: string, when?: unknown, outcome: string, reason?: string }} Rule */
/** @typedef {{ decision: string, rules: string[], reasons: string[], labels: unknown[] }} DryRun */

/** The Policy page. */
export function Policy() {
  const { data, error } = /** @type {import('../lib/useApi.js').Loaded<{ rules: Rule[], builtins: Record<string, unknown>, dryRun: boolean, labels: Record<string, unknown> }>} */ (useApi('policy'));
  const [form, setForm] = useState({ server: '', tool: '', arguments: '{}', principal: '' });
  const [result, setResult] = useState(/** @type {DryRun | null} */ (null));
  const [runError, setRunError] = useState('');
  /** @param {Event} event */
  const run = async (event) => {
    event.preventDefault();
    setRunError('');
    setResult(null);
    let args;
    try {
      args = form.arguments.trim() === '' ? {} : JSON.parse(form.arguments);
    } catch (e) {
      setRunError(`The arguments are not JSON: ${errorText(e)}`);
      return;
    }
    try {
      setResult(await api('policy/dry-run', { body: { server: form.server.trim(), tool: form.tool.trim(), arguments: args, ...(form.principal.trim() !== '' ? { principal: form.principal.trim() } : {}) } }));
    } catch (e) {
      setRunError(errorText(e));
    }
  };
  /** @param {'server' | 'tool' | 'arguments' | 'principal'} key */
  // From the state as it is when the input arrives, not as it was at the last render (keys typed faster than renders lose nothing).
  const bind = (key) => (/** @type {Event} */ e) => {
    const value = /** @type {HTMLInputElement} */ (e.currentTarget).value;
    setForm((current) => ({ ...current, [key]: value }));
  };
  return html`<h1 id="page-title">Policy</h1>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
    ${data === undefined && error === '' ? html`<p role="status">Loading…</p>` : null}
    ${data !== undefined
      ? html`${data.dryRun ? html`<${Notice}>The policy runs in dry-run mode: it records what it would decide and blocks nothing.<//>` : null}
          <${Table}
            caption="Rules, first match wins"
            testId="rules"
            rows=${data.rules}
            empty="No rules configured: only the built-in checks apply."
            columns=${[
              { label: 'Rule', cell: (/** @type {Rule} */ r) => html`<code><${Reveal} text=${r.id} /></code>` },
              { label: 'When', cell: (/** @type {Rule} */ r) => html`<code><${Reveal} text=${typeof r.when === 'string' ? r.when : JSON.stringify(r.when)} /></code>` },
              { label: 'Outcome', cell: (/** @type {Rule} */ r) => html`<${Badge} value=${r.outcome} />` },
              { label: 'Reason', cell: (/** @type {Rule} */ r) => r.reason ?? '' },
            ]}
          />
          <h2>Built-in checks</h2>
          <${JsonView} value=${data.builtins} label="Built-in checks" />`
      : null}
    <h2 id="dry-run-title">Dry run</h2>
    <form class="card" aria-labelledby="dry-run-title" onSubmit=${run}>
      <div class="row">
        <div class="field"><label for="dry-server">Server</label><input id="dry-server" required value=${form.server} onInput=${bind('server')} /></div>
        <div class="field"><label for="dry-tool">Tool</label><input id="dry-tool" required value=${form.tool} onInput=${bind('tool')} /></div>
        <div class="field"><label for="dry-principal">Principal (optional)</label><input id="dry-principal" value=${form.principal} onInput=${bind('principal')} /></div>
      </div>
      <label for="dry-arguments">Arguments (JSON)</label>
      <textarea id="dry-arguments" value=${form.arguments} onInput=${bind('arguments')}></textarea>
      <div class="actions"><button type="submit">Run dry run</button></div>
    </form>
    ${runError !== '' ? html`<${Notice} kind="error"><${Reveal} text=${runError} /><//>` : null}
    ${result !== null
      ? html`<section class="card" aria-label="Dry run result" data-testid="dry-run-result">
          <p>Decision: <${Badge} value=${result.decision} /></p>
          <p>Matching rules: ${result.rules.length === 0 ? 'none' : result.rules.map((r) => html`<code><${Reveal} text=${r} /></code> `)}</p>
          ${result.reasons.length > 0 ? html`<ul>${result.reasons.map((r) => html`<li><${Reveal} text=${r} /></li>`)}</ul>` : null}
          ${result.labels.length > 0 ? html`<${JsonView} value=${result.labels} label="Labels" />` : null}
        </section>`
      : null}`;
}
