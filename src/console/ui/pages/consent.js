// @ts-check
/**
 * Consent: the live queue of calls waiting for a person (pushed as server-sent events, no
 * polling), each with its server, tool, full arguments and the reasons it is asked; approve
 * once, widen (this tool, an argument pattern, this session, until a time) or deny. Below, the
 * kept approvals with Revoke.
 *
 * @module
 */
import { api, subscribe } from '../lib/api.js';
import { html, useEffect, useState } from '../lib/html.js';
import { useApi } from '../lib/useApi.js';
import { Badge } from '../components/badge.js';
import { JsonView } from '../components/json.js';
import { Table } from '../components/table.js';
import { Notice, Reveal, errorText, formatTime } from '../components/text.js';

/**
 * @typedef {{ id: string, createdAt: string, expiresAt: string, method: string, serverMethod?: string,
 *   server: { id: string, identity: string, name?: string, version?: string }, exposedName?: string, tool: string,
 *   arguments: unknown, reasons: string[], principal?: string, session?: string }} ConsentRequest
 */
/** @typedef {{ id: string, tool?: string, serverIdentity?: string, scope?: { match: string, duration: string, expiresAt?: string }, expiresAt?: string, approver?: string, createdAt?: string }} Grant */

/** The Consent page. */
export function Consent() {
  const { data, error, reload } = /** @type {import('../lib/useApi.js').Loaded<{ requests: ConsentRequest[], grants: Grant[], queue: boolean }>} */ (useApi('consent'));
  const [requests, setRequests] = useState(/** @type {ConsentRequest[]} */ ([]));
  const [message, setMessage] = useState(/** @type {{ kind: 'ok' | 'error', text: string } | null} */ (null));
  useEffect(() => {
    if (data !== undefined) setRequests((old) => merge(old, data.requests));
  }, [data]);
  useEffect(
    () =>
      subscribe({
        'consent-request': (/** @type {ConsentRequest} */ r) => setRequests((old) => merge(old, [r])),
        'consent-answered': (/** @type {{ id: string }} */ a) => (setRequests((old) => old.filter((r) => r.id !== a.id)), void reload()),
        'consent-closed': (/** @type {{ id: string }} */ a) => setRequests((old) => old.filter((r) => r.id !== a.id)),
      }),
    [reload],
  );
  /** @param {ConsentRequest} r @param {string} action @param {unknown} body @param {string} done */
  const answer = async (r, action, body, done) => {
    try {
      await api(`consent/${encodeURIComponent(r.id)}/${action}`, { body });
      setRequests((old) => old.filter((x) => x.id !== r.id));
      setMessage({ kind: 'ok', text: done });
      await reload();
    } catch (e) {
      setMessage({ kind: 'error', text: errorText(e) });
    }
  };
  /** @param {Grant} g */
  const revoke = async (g) => {
    try {
      await api(`consent/grants/${encodeURIComponent(g.id)}`, { method: 'DELETE' });
      setMessage({ kind: 'ok', text: `Revoked approval ${g.id}.` });
      await reload();
    } catch (e) {
      setMessage({ kind: 'error', text: errorText(e) });
    }
  };
  return html`<h1 id="page-title">Consent</h1>
    <p class="lede">Calls waiting for a person. New requests appear here as they are asked.</p>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
    ${data?.queue === false ? html`<${Notice}>The config's <code>switchboard.consent.providers</code> has no <code>"queue"</code>: no request will arrive here.<//>` : null}
    ${message !== null ? html`<${Notice} kind=${message.kind}><${Reveal} text=${message.text} /><//>` : null}
    <section aria-labelledby="queue-title" aria-live="polite">
      <h2 id="queue-title">Waiting (${requests.length})</h2>
      ${requests.length === 0 ? html`<p data-testid="queue-empty">No call is waiting.</p>` : null}
      ${requests.map((r) => html`<${RequestCard} key=${r.id} request=${r} answer=${answer} />`)}
    </section>
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Kept approvals</h2>
      <${Table}
        caption="Approvals that cover later calls"
        testId="grants"
        rows=${data?.grants ?? []}
        empty="No kept approvals."
        columns=${[
          { label: 'Tool', cell: (/** @type {Grant} */ g) => g.tool ?? '' },
          { label: 'Server', cell: (/** @type {Grant} */ g) => g.serverIdentity ?? '' },
          { label: 'Scope', cell: (/** @type {Grant} */ g) => (g.scope === undefined ? '' : `${g.scope.match}, ${g.scope.duration}`) },
          { label: 'Expires', cell: (/** @type {Grant} */ g) => formatTime(g.expiresAt ?? g.scope?.expiresAt) || 'with the session' },
          { label: 'By', cell: (/** @type {Grant} */ g) => g.approver ?? '' },
          { label: 'Action', cell: (/** @type {Grant} */ g) => html`<button type="button" class="secondary" onClick=${() => revoke(g)} aria-label=${`Revoke approval of ${g.tool ?? g.id}`}>Revoke</button>` },
        ]}
      />
    </section>`;
}

/** `old` plus the requests of `add` not yet in it (by id), oldest first. */
function merge(/** @type {ConsentRequest[]} */ old, /** @type {ConsentRequest[]} */ add) {
  const ids = new Set(old.map((r) => r.id));
  return [...old, ...add.filter((r) => !ids.has(r.id))];
}

/**
 * One waiting request with its answer controls.
 * @param {{ request: ConsentRequest, answer: (r: ConsentRequest, action: string, body: unknown, done: string) => Promise<void> }} props
 */
function RequestCard({ request: r, answer }) {
  const [reason, setReason] = useState('');
  const [match, setMatch] = useState('tool');
  const [duration, setDuration] = useState('session');
  const [until, setUntil] = useState('');
  const args = r.arguments !== null && typeof r.arguments === 'object' ? /** @type {Record<string, unknown>} */ (r.arguments) : {};
  const [patterns, setPatterns] = useState(/** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(args).filter(([, v]) => typeof v === 'string').map(([k, v]) => [k, String(v)]))));
  const name = r.exposedName ?? r.tool;
  const p = `c-${r.id}`;
  const widen = () => {
    /** @type {Record<string, unknown>} */
    const scope = { match, duration };
    if (match === 'pattern') scope['patterns'] = patterns;
    if (duration === 'until' || (duration === 'session' && until !== '')) scope['expiresAt'] = new Date(until).toISOString();
    void answer(r, 'approve', { scope }, `Approved ${name} (${match}, ${duration}).`);
  };
  const untilInvalid = duration === 'until' && (until === '' || Number.isNaN(new Date(until).getTime()));
  return html`<article class="card consent-item" aria-labelledby=${`${p}-title`} data-testid="consent-request" data-id=${r.id}>
    <h3 id=${`${p}-title`}><code><${Reveal} text=${name} /></code> on <${Reveal} text=${r.server.id} /> <${Badge} value="pending" /></h3>
    <p class="hint">${r.method}${r.serverMethod !== undefined ? ` (${r.serverMethod})` : ''} · asked ${formatTime(r.createdAt)} · denied if unanswered at ${formatTime(r.expiresAt)}
      ${r.principal !== undefined ? html` · by <${Reveal} text=${r.principal} />` : null}${r.session !== undefined ? html` · session <code><${Reveal} text=${r.session} /></code>` : null}</p>
    <h4>Why you are asked</h4>
    <ul>${r.reasons.map((reason) => html`<li><${Reveal} text=${reason} /></li>`)}</ul>
    <h4>Arguments</h4>
    <${JsonView} value=${r.arguments} label=${`Arguments of ${name}`} />
    <div class="actions">
      <button type="button" onClick=${() => answer(r, 'approve', {}, `Approved ${name} once.`)} aria-label=${`Approve this call of ${name} once`}>Approve once</button>
      <div class="field">
        <label for=${`${p}-reason`}>Reason for denying (optional)</label>
        <input id=${`${p}-reason`} value=${reason} onInput=${(/** @type {Event} */ e) => setReason(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      </div>
      <button type="button" class="danger" onClick=${() => answer(r, 'deny', reason.trim() === '' ? {} : { reason: reason.trim() }, `Denied ${name}.`)} aria-label=${`Deny this call of ${name}`}>Deny</button>
    </div>
    <details>
      <summary>Widen the approval</summary>
      <fieldset>
        <legend>Which calls</legend>
        ${[
          ['call', 'This exact call (same arguments)'],
          ['tool', 'This tool, any arguments'],
          ['pattern', 'Arguments matching patterns'],
        ].map(([v, l]) => html`<label class="check"><input type="radio" name=${`${p}-match`} value=${v} checked=${match === v} onChange=${() => setMatch(String(v))} />${l}</label>`)}
        ${match === 'pattern'
          ? Object.keys(patterns).map(
              (k) => html`<div class="field"><label for=${`${p}-pat-${k}`}>Pattern for <code>${k}</code> (* any run, ? one character)</label>
                <input id=${`${p}-pat-${k}`} value=${patterns[k]} onInput=${(/** @type {Event} */ e) => setPatterns({ ...patterns, [k]: /** @type {HTMLInputElement} */ (e.currentTarget).value })} /></div>`,
            )
          : null}
      </fieldset>
      <fieldset>
        <legend>For how long</legend>
        ${[
          ['once', 'Only this call'],
          ['session', 'This session'],
          ['until', 'Any session of this principal, until a time'],
        ].map(([v, l]) => html`<label class="check"><input type="radio" name=${`${p}-duration`} value=${v} checked=${duration === v} onChange=${() => setDuration(String(v))} />${l}</label>`)}
        <div class="field">
          <label for=${`${p}-until`}>Expires at ${duration === 'until' ? '(required)' : '(optional)'}</label>
          <input id=${`${p}-until`} type="datetime-local" value=${until} onInput=${(/** @type {Event} */ e) => setUntil(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
        </div>
      </fieldset>
      <button type="button" disabled=${untilInvalid} onClick=${widen} aria-label=${`Approve ${name} with the widened scope`}>Approve widened</button>
    </details>
  </article>`;
}
