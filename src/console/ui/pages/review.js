// @ts-check
/**
 * Review: tool, prompt and resource definitions held back because they changed since a person
 * approved them (or are new, or were rejected), each as a side-by-side diff with hidden
 * Unicode made visible, with Approve and Reject; changed server instructions; and launch specs
 * (commands) waiting for consent before the gateway starts them. Beside each diff, the scanner's
 * findings for the new definition (rule id, severity, where, evidence); a change with findings
 * is approved only once "I have read the findings" is ticked (the API refuses it otherwise).
 *
 * @module
 */
import { api } from '../lib/api.js';
import { html, useState } from '../lib/html.js';
import { useApi } from '../lib/useApi.js';
import { Badge } from '../components/badge.js';
import { Diff } from '../components/diff.js';
import { prettyJson } from '../components/json.js';
import { Notice, Reveal, errorText, formatTime } from '../components/text.js';

/** @typedef {{ rule: string, severity: string, blocking: boolean, message: string, evidence: string, location: { path: string } }} Finding */
/** @typedef {{ identity: string, server: string, item: string, kind: string, name: string, status: string, before: Record<string, unknown> | null, after: Record<string, unknown>, findings?: Finding[], at?: number }} ReviewItem */
/** @typedef {{ identity: string, server: string, item: string, before: string | null, after: string, findings?: Finding[] }} InstructionsItem */
/** @typedef {{ kind: string, severity: 'flag' | 'warn', package: string, imitates?: string, message: string }} LaunchFinding */
/** @typedef {{ server: string, command: string, args: string[], cwd: string | null, startsIn: string, env: string[], digest: string, reason: string, findings?: LaunchFinding[] }} Launch */

/**
 * A definition as readable lines: name and title, the description line by line, then the
 * other fields as indented JSON (so a change in one sentence is one changed line).
 * @param {Record<string, unknown> | null} def
 */
export function definitionText(def) {
  if (def === null) return '';
  const { name, title, description, ...rest } = def;
  const lines = [];
  if (name !== undefined) lines.push(`name: ${String(name)}`);
  if (title !== undefined) lines.push(`title: ${String(title)}`);
  if (description !== undefined) lines.push('description:', ...String(description).split('\n').map((l) => `  ${l}`));
  for (const [key, value] of Object.entries(rest)) lines.push(`${key}:`, ...prettyJson(value).split('\n').map((l) => `  ${l}`));
  return lines.join('\n');
}

/**
 * The scanner's findings for a new definition, and the acknowledgement an approval of it needs.
 * @param {{ findings: Finding[] | undefined, label: string, acknowledged: boolean, onAcknowledge: (value: boolean) => void }} props
 */
function Findings({ findings, label, acknowledged, onAcknowledge }) {
  const list = findings ?? [];
  if (list.length === 0) return html`<p class="hint" data-testid="review-findings">Scanner: no findings in the new definition.</p>`;
  return html`<div class="findings" data-testid="review-findings">
    <h3>Scanner: ${list.length} finding${list.length === 1 ? '' : 's'} in the new definition</h3>
    <ul>
      ${list.map(
        (f) => html`<li>
          <code>${f.rule}</code> <${Badge} value=${f.severity} />${f.blocking ? html` <strong>blocks the item</strong>` : null} at <code>${f.location.path}</code>: <${Reveal} text=${f.message} />
          <div class="mono">Evidence: <${Reveal} text=${f.evidence} /></div>
        </li>`,
      )}
    </ul>
    <label><input type="checkbox" checked=${acknowledged} onChange=${(/** @type {Event} */ e) => onAcknowledge(/** @type {HTMLInputElement} */ (e.target).checked)}
      aria-label=${`I have read the findings of ${label}`} /> I have read the findings</label>
  </div>`;
}

/**
 * The supply-chain findings of a launch; a flag (a package imitating a well-known one) needs the acknowledgement before Approve.
 * @param {{ launch: Launch, acknowledged: boolean, onAcknowledge: (value: boolean) => void }} props
 */
function LaunchFindings({ launch, acknowledged, onAcknowledge }) {
  const list = launch.findings ?? [];
  if (list.length === 0) return null;
  const flagged = list.some((f) => f.severity === 'flag');
  return html`<div class="findings" data-testid="review-launch-findings">
    <h3>Supply chain: ${list.length} finding${list.length === 1 ? '' : 's'}</h3>
    <ul>
      ${list.map((f) => html`<li><code>${f.kind}</code> <${Badge} value=${f.severity === 'flag' ? 'high' : 'low'} />${f.severity === 'flag' ? html` <strong>needs your acknowledgement</strong>` : null}: <${Reveal} text=${f.message} /></li>`)}
    </ul>
    ${flagged
      ? html`<label><input type="checkbox" checked=${acknowledged} onChange=${(/** @type {Event} */ e) => onAcknowledge(/** @type {HTMLInputElement} */ (e.target).checked)}
          aria-label=${`I have read the warnings on the launch of ${launch.server}`} /> I have read the warnings</label>`
      : null}
  </div>`;
}

/** The Review page. */
export function Review() {
  const { data, error, reload } = /** @type {import('../lib/useApi.js').Loaded<{ items: ReviewItem[], instructions: InstructionsItem[], launches: Launch[] }>} */ (useApi('review', ['pins', 'tools', 'servers']));
  const [message, setMessage] = useState(/** @type {{ kind: 'ok' | 'error', text: string } | null} */ (null));
  // Which items' findings the person ticked as read, by `<identity> <item>`.
  const [read, setRead] = useState(/** @type {Record<string, boolean>} */ ({}));
  /** @param {{ identity: string, item: string }} i */
  const key = (i) => `${i.identity} ${i.item}`;
  /** @param {{ identity: string, item: string }} i @param {boolean} value */
  const acknowledge = (i, value) => setRead({ ...read, [key(i)]: value });
  /** @param {{ identity: string, item: string, findings?: Finding[] }} i */
  const blocked = (i) => (i.findings ?? []).length > 0 && read[key(i)] !== true;
  /** @param {{ identity: string, item: string, findings?: Finding[] }} i */
  const approval = (i) => ({ identity: i.identity, item: i.item, ...((i.findings ?? []).length > 0 ? { acknowledgeFindings: read[key(i)] === true } : {}) });
  /** @param {Launch} l */
  const launchKey = (l) => `launch ${l.server} ${l.digest}`;
  /** @param {Launch} l */
  const launchFlagged = (l) => (l.findings ?? []).some((f) => f.severity === 'flag');
  /** @param {string} path @param {unknown} body @param {string} done */
  const act = async (path, body, done) => {
    try {
      await api(path, { body });
      setMessage({ kind: 'ok', text: done });
      await reload();
    } catch (e) {
      setMessage({ kind: 'error', text: errorText(e) });
    }
  };
  if (data === undefined) return html`<h1 id="page-title">Review</h1>${error !== '' ? html`<${Notice} kind="error">${error}<//>` : html`<p role="status">Loading…</p>`}`;
  const nothing = data.items.length === 0 && data.instructions.length === 0 && data.launches.length === 0;
  return html`<h1 id="page-title">Review</h1>
    <p class="lede">Definitions held back until a person approves them. Hidden characters are shown as ⟦U+…⟧ markers.</p>
    ${message !== null ? html`<${Notice} kind=${message.kind}><${Reveal} text=${message.text} /><//>` : null}
    ${nothing ? html`<p>Nothing waits for review.</p>` : null}
    ${data.items.map(
      (item) => html`<section class="card" aria-labelledby=${`rev-${item.identity}-${item.item}`} data-testid="review-item">
        <h2 id=${`rev-${item.identity}-${item.item}`}>${item.kind} <code><${Reveal} text=${item.name} /></code> on <${Reveal} text=${item.server} /> <${Badge} value=${item.status} /></h2>
        ${item.at !== undefined ? html`<p class="hint">Seen ${formatTime(item.at)}</p>` : null}
        <${Diff} caption=${`Definition of ${item.kind} ${item.name}`} before=${definitionText(item.before)} after=${definitionText(item.after)}
          beforeLabel=${item.before === null ? 'Not approved before' : 'Approved before'} />
        <${Findings} findings=${item.findings} label=${`${item.kind} ${item.name} on ${item.server}`} acknowledged=${read[key(item)] === true} onAcknowledge=${(/** @type {boolean} */ v) => acknowledge(item, v)} />
        <div class="actions">
          <button type="button" disabled=${blocked(item)} onClick=${() => act('review/approve', approval(item), `Approved ${item.kind} ${item.name} on ${item.server}.`)}
            aria-label=${`Approve ${item.kind} ${item.name} on ${item.server}`}>Approve</button>
          <button type="button" class="danger" onClick=${() => act('review/reject', { identity: item.identity, item: item.item }, `Rejected ${item.kind} ${item.name} on ${item.server}.`)}
            aria-label=${`Reject ${item.kind} ${item.name} on ${item.server}`}>Reject</button>
        </div>
      </section>`,
    )}
    ${data.instructions.map(
      (ins) => html`<section class="card" aria-label=${`Instructions of ${ins.server}`} data-testid="review-instructions">
        <h2>Instructions of <${Reveal} text=${ins.server} /></h2>
        <${Diff} caption=${`Instructions of ${ins.server}`} before=${ins.before ?? ''} after=${ins.after} />
        <${Findings} findings=${ins.findings} label=${`the instructions of ${ins.server}`} acknowledged=${read[key(ins)] === true} onAcknowledge=${(/** @type {boolean} */ v) => acknowledge(ins, v)} />
        <div class="actions">
          <button type="button" disabled=${blocked(ins)} onClick=${() => act('review/approve', approval(ins), `Approved the instructions of ${ins.server}.`)}
            aria-label=${`Approve the instructions of ${ins.server}`}>Approve</button>
          <button type="button" class="danger" onClick=${() => act('review/reject', { identity: ins.identity, item: ins.item }, `Rejected the instructions of ${ins.server}.`)}
            aria-label=${`Reject the instructions of ${ins.server}`}>Reject</button>
        </div>
      </section>`,
    )}
    ${data.launches.length > 0
      ? html`<h2>Launches waiting for consent</h2>
          ${data.launches.map(
            (l) => html`<section class="card" aria-label=${`Launch of ${l.server}`} data-testid="review-launch">
              <h3>Start <${Reveal} text=${l.server} /></h3>
              <p><${Reveal} text=${l.reason} /></p>
              <dl>
                <dt>Command</dt><dd><code><${Reveal} text=${[l.command, ...l.args].join(' ')} /></code></dd>
                <dt>Working folder</dt><dd data-testid="launch-folder"><${Reveal} text=${l.startsIn} />${l.cwd === null ? " (not set in the config: the gateway's own)" : ''}</dd>
                <dt>Environment names</dt><dd><${Reveal} text=${l.env.join(', ') || '(none)'} /></dd>
                <dt>Digest</dt><dd class="mono"><${Reveal} text=${l.digest} /></dd>
              </dl>
              <${LaunchFindings} launch=${l} acknowledged=${read[launchKey(l)] === true} onAcknowledge=${(/** @type {boolean} */ v) => setRead({ ...read, [launchKey(l)]: v })} />
              <div class="actions">
                <button type="button" disabled=${launchFlagged(l) && read[launchKey(l)] !== true}
                  onClick=${() => act('review/launches/approve', { server: l.server, digest: l.digest, ...(launchFlagged(l) ? { acknowledgeFindings: read[launchKey(l)] === true } : {}) }, `Approved the launch of ${l.server}.`)}
                  aria-label=${`Approve the launch of ${l.server}`}>Approve launch</button>
              </div>
            </section>`,
          )}`
      : null}`;
}
