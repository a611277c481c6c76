// @ts-check
/**
 * Connections: every principal's own sign-in at a remote server (servers with `auth`
 * `per-user` or `token-exchange`), as the gateway's connection store lists them: never a
 * token. Filter by principal, server and tenant; revoke one connection, or every connection of a
 * principal. A revoked principal's next call asks them to sign in again.
 *
 * @module
 */
import { api } from '../lib/api.js';
import { html, useState } from '../lib/html.js';
import { useApi } from '../lib/useApi.js';
import { Table } from '../components/table.js';
import { Notice, Reveal, asRevokedText, errorText, formatTime } from '../components/text.js';

/**
 * @typedef {{ principal: string, tenant?: string, server: string, serverId: string, mode: string, scopes: string[], issuer: string,
 *   createdAt: number, updatedAt: number, expiresAt?: number, refreshable: boolean }} ConnectionRow
 */
/** @typedef {{ enabled: boolean, opened?: boolean, connections: ConnectionRow[] }} ConnectionsState */

/** The query string of the filters. */
function query(/** @type {{ principal: string, server: string, tenant: string }} */ f) {
  const q = new URLSearchParams();
  if (f.principal.trim() !== '') q.set('principal', f.principal.trim());
  if (f.server.trim() !== '') q.set('server', f.server.trim());
  if (f.tenant.trim() !== '') q.set('tenant', f.tenant.trim());
  const s = q.toString();
  return s === '' ? 'connections' : `connections?${s}`;
}

/** The Connections page. */
export function Connections() {
  const [filters, setFilters] = useState({ principal: '', server: '', tenant: '' });
  const [applied, setApplied] = useState(filters);
  const { data, error, reload } = /** @type {import('../lib/useApi.js').Loaded<ConnectionsState>} */ (useApi(query(applied), ['connections']));
  const [message, setMessage] = useState(/** @type {{ kind: 'ok' | 'warn' | 'error', text: string } | null} */ (null));
  /** @param {{ principal: string, server?: string }} body @param {string} what */
  const revoke = async (body, what) => {
    try {
      const answer = await api('connections/revoke', { body });
      const atAs = asRevokedText(answer.connections);
      setMessage({ kind: atAs === '' ? 'ok' : 'warn', text: `Revoked ${answer.revoked === 1 ? 'the connection' : `${answer.revoked} connections`} of ${what}.${atAs}` });
      await reload();
    } catch (e) {
      setMessage({ kind: 'error', text: errorText(e) });
    }
  };
  const rows = data?.connections ?? [];
  const principals = [...new Set(rows.map((c) => c.principal))];
  return html`<h1 id="page-title">Connections</h1>
    <p class="lede">Each user's own sign-in at a remote server (servers with <code>auth</code> <code>per-user</code> or <code>token-exchange</code>). Tokens are never shown.</p>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
    ${data?.enabled === false ? html`<${Notice}>This gateway keeps no per-user connections.<//>` : null}
    ${data?.opened === false ? html`<${Notice}>No server of the config has <code>auth</code> <code>per-user</code> or <code>token-exchange</code>, and no connection was ever stored.<//>` : null}
    ${message !== null ? html`<${Notice} kind=${message.kind}><${Reveal} text=${message.text} /><//>` : null}
    <form class="card" aria-label="Connection filters" onSubmit=${(/** @type {Event} */ e) => (e.preventDefault(), setApplied({ ...filters }))}>
      <div class="row">
        ${/** @type {const} */ ([
          ['principal', 'Principal'],
          ['server', 'Server (id or URL)'],
          ['tenant', 'Tenant'],
        ]).map(
          ([key, label]) => html`<div class="field">
            <label for=${`conn-${key}`}>${label}</label>
            <input id=${`conn-${key}`} value=${filters[key]} onInput=${(/** @type {Event} */ e) => setFilters({ ...filters, [key]: /** @type {HTMLInputElement} */ (e.currentTarget).value })} />
          </div>`,
        )}
      </div>
      <button type="submit">Filter</button>
    </form>
    <${Table}
      caption="Per-user connections"
      testId="connections"
      rows=${rows}
      empty="No connections."
      rowKey=${(/** @type {ConnectionRow} */ c) => `${c.principal} ${c.server}`}
      columns=${[
        { label: 'Principal', cell: (/** @type {ConnectionRow} */ c) => c.principal },
        { label: 'Tenant', cell: (/** @type {ConnectionRow} */ c) => c.tenant ?? '' },
        { label: 'Server', cell: (/** @type {ConnectionRow} */ c) => c.serverId },
        { label: 'Identity', cell: (/** @type {ConnectionRow} */ c) => c.server },
        { label: 'Mode', cell: (/** @type {ConnectionRow} */ c) => c.mode },
        { label: 'Scopes', cell: (/** @type {ConnectionRow} */ c) => c.scopes.join(' ') },
        { label: 'Since', cell: (/** @type {ConnectionRow} */ c) => formatTime(c.createdAt) },
        { label: 'Updated', cell: (/** @type {ConnectionRow} */ c) => formatTime(c.updatedAt) },
        { label: 'Expires', cell: (/** @type {ConnectionRow} */ c) => formatTime(c.expiresAt) || 'unknown' },
        { label: 'Refreshable', cell: (/** @type {ConnectionRow} */ c) => (c.refreshable ? 'yes' : 'no') },
        {
          label: 'Action',
          cell: (/** @type {ConnectionRow} */ c) =>
            html`<button type="button" class="danger" onClick=${() => revoke({ principal: c.principal, server: c.server }, `${c.principal} at ${c.serverId}`)} aria-label=${`Revoke the connection of ${c.principal} at ${c.serverId}`}>Revoke</button>`,
        },
      ]}
    />
    ${principals.length > 0
      ? html`<section aria-labelledby="by-principal-title">
          <h2 id="by-principal-title">Revoke every connection of a principal</h2>
          <ul>
            ${principals.map(
              (p) => html`<li><${Reveal} text=${p} /> <button type="button" class="secondary" onClick=${() => revoke({ principal: p }, p)} aria-label=${`Revoke every connection of ${p}`}>Revoke all</button></li>`,
            )}
          </ul>
        </section>`
      : null}`;
}
