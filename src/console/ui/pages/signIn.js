// @ts-check
/**
 * The sign-in page: the person pastes the admin token (from `.switchboard/admin-token`), which
 * the server exchanges for an HttpOnly session cookie. The token is never stored by the page.
 *
 * @module
 */
import { api, setCsrf } from '../lib/api.js';
import { html, useState } from '../lib/html.js';
import { Notice, errorText } from '../components/text.js';

/**
 * @param {{ onSignedIn: () => void }} props
 */
export function SignIn({ onSignedIn }) {
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
      setCsrf(String(session?.csrf ?? ''));
      setToken('');
      onSignedIn();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="main" class="signin" tabindex="-1">
    <h1>Switchboard console</h1>
    <form onSubmit=${submit} class="card" aria-labelledby="signin-title">
      <h2 id="signin-title">Sign in</h2>
      <p>Paste the admin token from <code>.switchboard/admin-token</code>. The MCP bearer token does not open the console.</p>
      <label for="admin-token">Admin token</label>
      <input id="admin-token" name="token" type="password" autocomplete="current-password" required value=${token}
        onInput=${(/** @type {Event} */ e) => setToken(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      <button type="submit" disabled=${busy}>Sign in</button>
      ${error !== '' ? html`<${Notice} kind="error">${error}<//>` : null}
    </form>
  </main>`;
}
