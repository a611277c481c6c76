// @ts-check
/**
 * My connections: the signed-in person's own sign-ins at remote servers (servers with `auth`
 * `per-user` or `token-exchange`), as `GET me/connections` lists them: which server, since
 * when, last refreshed, scopes, mode; never a token. Revoke one, or all, after a confirmation;
 * the server then asks this person to sign in again on their next call.
 *
 * @module
 */
import { api } from '../lib/api.js';
import { html, useState } from '../lib/html.js';
import { useApi } from '../lib/useApi.js';
import { Table } from '../components/table.js';
import { Notice, Reveal, asRevokedText, errorText, formatTime } from '../components/text.js';

/**
 * @typedef {{ server: string, serverId: string, mode: string, scopes: string[], issuer: string,
 *   since: number, refreshedAt: number, expiresAt?: number, refreshable: boolean }} MyConnection
 */
/** @typedef {{ principal: { id: string, tenant?: string, issuer: string }, enabled: boolean, connections: MyConnection[] }} MyConnections */

/** What is waiting for a confirmation: one server's connection, or all of them. */
/** @typedef {{ server?: string, label: string } | null} Pending */

/** The My connections page. */
export function MyConnectionsPage() {
  const { data, error, reload } = /** @type {import('../lib/useApi.js').Loaded<MyConnections>} */ (useApi('me/connections'));
  const [pending, setPending] = useState(/** @type {Pending} */ (null));
  const [message, setMessage] = useState(/** @type {{ kind: 'ok' | 'warn' | 'error', text: string } | null} */ (null));
  const revoke = async () => {
    if (pending === null) return;
    const what = pending;
    setPending(null);
    try {
      const answer = await api('me/connections/revoke', { body: what.server !== undefined ? { server: what.server } : {} });
      const atAs = asRevokedText(answer.connections);
      setMessage({ kind: atAs === '' ? 'ok' : 'warn', text: `Revoked ${answer.revoked === 1 ? 'your connection' : `${answer.revoked} connections`} (${what.label}). Your next call there asks you to sign in again.${atAs}` });
      await reload();
    } catch (e) {
      setMessage({ kind: 'error', text: errorText(e) });
    }
  };
  const rows = data?.connections ?? [];
  const who = data?.principal;
  return html`<h1 id="page-title">My connections</h1>
    <p class="lede">
      The servers you have signed in to through this gateway${who !== undefined ? html` as <strong><${Reveal} text=${who.id} /></strong>` : null}. Tokens are never shown.
    </p>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
    ${data?.enabled === false ? html`<${Notice}>This gateway keeps no per-user connections.<//>` : null}
    ${message !== null ? html`<${Notice} kind=${message.kind}><${Reveal} text=${message.text} /><//>` : null}
    ${pending !== null
      ? html`<div class="card" role="alertdialog" aria-labelledby="confirm-title" aria-describedby="confirm-text">
          <h2 id="confirm-title">Revoke ${pending.label}?</h2>
          <p id="confirm-text">The gateway forgets your tokens there; your next call to that server asks you to sign in again.</p>
          <button type="button" class="danger" onClick=${revoke}>Yes, revoke</button>
          <button type="button" class="secondary" onClick=${() => setPending(null)}>Cancel</button>
        </div>`
      : null}
    <${Table}
      caption="My connections"
      testId="my-connections"
      rows=${rows}
      empty="You are not connected to any server through this gateway."
      rowKey=${(/** @type {MyConnection} */ c) => c.server}
      columns=${[
        { label: 'Server', cell: (/** @type {MyConnection} */ c) => c.serverId },
        { label: 'Identity', cell: (/** @type {MyConnection} */ c) => c.server },
        { label: 'Mode', cell: (/** @type {MyConnection} */ c) => c.mode },
        { label: 'Scopes', cell: (/** @type {MyConnection} */ c) => c.scopes.join(' ') },
        { label: 'Since', cell: (/** @type {MyConnection} */ c) => formatTime(c.since) },
        { label: 'Last refreshed', cell: (/** @type {MyConnection} */ c) => formatTime(c.refreshedAt) },
        { label: 'Expires', cell: (/** @type {MyConnection} */ c) => formatTime(c.expiresAt) || 'unknown' },
        {
          label: 'Action',
          cell: (/** @type {MyConnection} */ c) =>
            html`<button type="button" class="danger" onClick=${() => setPending({ server: c.server, label: `your connection to ${c.serverId}` })} aria-label=${`Revoke my connection to ${c.serverId}`}>Revoke</button>`,
        },
      ]}
    />
    ${rows.length > 1
      ? html`<p><button type="button" class="secondary" onClick=${() => setPending({ label: 'all your connections' })}>Revoke all my connections</button></p>`
      : null}`;
}
