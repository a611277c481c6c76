// @ts-check
/**
 * The sign-in page, offering the ways this gateway has (`GET session/ways`):
 *
 * - the admin token (from `.switchboard/admin-token`): every admin page;
 * - a person's own named gateway token (`gateway.auth.tokens`): My connections only;
 * - "Sign in with <issuer>" (`gateway.auth.oauth.console`): the browser goes to the
 *   authorization server and comes back signed in as that person (My connections only).
 *
 * The server exchanges a token for an HttpOnly session cookie; the page never stores a token.
 *
 * @module
 */
import { api } from '../lib/api.js';
import { html, useEffect, useState } from '../lib/html.js';
import { Notice, errorText } from '../components/text.js';

/** @typedef {{ admin: boolean, namedTokens: boolean, oauth: { issuer: string } | null }} Ways */

/**
 * One token form.
 * @param {{ id: string, title: string, text: any, label: string, button: string, onSignedIn: (session: any) => void }} props
 */
function TokenForm({ id, title, text, label, button, onSignedIn }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError('');
    try {
      const session = await api('session', { method: 'POST', body: { token: token.trim() } });
      setToken('');
      onSignedIn(session);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return html`<form onSubmit=${submit} class="card" aria-labelledby=${`${id}-title`}>
    <h2 id=${`${id}-title`}>${title}</h2>
    <p>${text}</p>
    <label for=${id}>${label}</label>
    <input id=${id} name="token" type="password" autocomplete="current-password" required value=${token}
      onInput=${(/** @type {Event} */ e) => setToken(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <button type="submit" disabled=${busy}>${button}</button>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
  </form>`;
}

/** "Sign in with <issuer>": the server starts the authorization request; the browser follows it. */
function OAuthSignIn(/** @type {{ issuer: string }} */ { issuer }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    setError('');
    try {
      const answer = await api('session/oauth', { method: 'POST' });
      location.assign(String(answer?.location ?? ''));
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return html`<section class="card" aria-labelledby="oauth-title">
    <h2 id="oauth-title">Your connections</h2>
    <p>Sign in at your organisation's authorization server to see and revoke the servers you have connected to.</p>
    <button type="button" onClick=${start} disabled=${busy}>Sign in with ${issuer}</button>
    ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
  </section>`;
}

/**
 * @param {{ onSignedIn: (session: any) => void }} props
 */
export function SignIn({ onSignedIn }) {
  const [ways, setWays] = useState(/** @type {Ways} */ ({ admin: true, namedTokens: false, oauth: null }));
  useEffect(() => {
    api('session/ways')
      .then((w) => setWays(/** @type {Ways} */ (w)))
      .catch(() => undefined);
  }, []);
  return html`<main id="main" class="signin" tabindex="-1">
    <h1>Switchboard console</h1>
    <${TokenForm}
      id="admin-token"
      title="Sign in"
      text=${html`Paste the admin token from <code>.switchboard/admin-token</code>. The MCP bearer token does not open the console.`}
      label="Admin token"
      button="Sign in"
      onSignedIn=${onSignedIn} />
    ${ways.namedTokens
      ? html`<${TokenForm}
          id="named-token"
          title="My connections"
          text="Paste your own gateway token (the one your MCP client uses) to see and revoke the servers you have connected to. It opens nothing else."
          label="Your gateway token"
          button="Open my connections"
          onSignedIn=${onSignedIn} />`
      : null}
    ${ways.oauth !== null ? html`<${OAuthSignIn} issuer=${ways.oauth.issuer} />` : null}
  </main>`;
}
