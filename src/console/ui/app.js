// @ts-check
/**
 * The console's entry module: checks the session, then shows the layout (skip link, banner,
 * navigation, main region) and the page the URL hash names. An admin session gets every admin
 * page; a person's session (a named token, or the sign-in with the authorization server) gets
 * only My connections, and no admin navigation. Loaded by index.html as
 * `<script type="module" src="app.js">` (no inline script: the CSP allows only 'self').
 *
 * @module
 */
import { api, onSignedOut, setCsrf } from './lib/api.js';
import { html, render, useEffect, useRef, useState } from './lib/html.js';
import { useRoute } from './lib/route.js';
import { Notice, errorText } from './components/text.js';
import { SignIn } from './pages/signIn.js';
import { Overview } from './pages/overview.js';
import { Tools } from './pages/tools.js';
import { Review } from './pages/review.js';
import { Consent } from './pages/consent.js';
import { Connections } from './pages/connections.js';
import { Audit } from './pages/audit.js';
import { Policy } from './pages/policy.js';
import { Inspector } from './pages/inspector.js';
import { MyConnectionsPage } from './pages/me.js';

/** The pages, in navigation order. */
const PAGES = [
  { id: 'overview', title: 'Overview', view: Overview },
  { id: 'tools', title: 'Tools', view: Tools },
  { id: 'review', title: 'Review', view: Review },
  { id: 'consent', title: 'Consent', view: Consent },
  { id: 'connections', title: 'Connections', view: Connections },
  { id: 'audit', title: 'Audit', view: Audit },
  { id: 'policy', title: 'Policy', view: Policy },
  { id: 'inspector', title: 'Inspector', view: Inspector },
];

/** A person's pages: their own connections only. */
const PERSON_PAGES = [{ id: 'me', title: 'My connections', view: MyConnectionsPage }];

/** The signed-in layout: the pages of the session's role. */
function Shell(/** @type {{ onSignOut: () => void, role: string }} */ { onSignOut, role }) {
  const route = useRoute();
  const pages = role === 'person' ? PERSON_PAGES : PAGES;
  // A person lands on (and stays on) My connections; the admin's default is the overview.
  const page = pages.find((p) => p.id === route.page) ?? (role === 'person' ? PERSON_PAGES[0] : undefined);
  const main = useRef(/** @type {HTMLElement | null} */ (null));
  const first = useRef(true);
  useEffect(() => {
    document.title = `${page?.title ?? 'Not found'} · Switchboard console`;
    // Move focus to the new page's region on navigation (not on the first load).
    if (!first.current) main.current?.focus();
    first.current = false;
  }, [route.page]);
  const signOut = async () => {
    await api('session', { method: 'DELETE' }).catch(() => undefined);
    onSignOut();
  };
  return html`<a class="skip" href="#main" onClick=${(/** @type {Event} */ e) => (e.preventDefault(), main.current?.focus())}>Skip to content</a>
    <header class="banner" role="banner">
      <span class="brand">Switchboard</span>
      <nav aria-label="Console pages">
        <ul>
          ${pages.map((p) => html`<li><a href=${`#/${p.id}`} aria-current=${p.id === page?.id ? 'page' : undefined}>${p.title}</a></li>`)}
        </ul>
      </nav>
      <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
    </header>
    <main id="main" tabindex="-1" ref=${main} aria-labelledby="page-title">
      ${page === undefined
        ? html`<h1 id="page-title">Not found</h1><p>No page named “${route.page}”.</p>`
        : html`<${page.view} query=${route.query} rest=${route.rest} key=${page.id} />`}
    </main>`;
}

/** Session gate: sign-in page until the server accepts the session cookie. */
function App() {
  const [state, setState] = useState(/** @type {'checking' | 'in' | 'out' | string} */ ('checking'));
  const [role, setRole] = useState('admin');
  /** @param {any} session */
  const signedIn = (session) => {
    setCsrf(String(session?.csrf ?? ''));
    setRole(session?.role === 'person' ? 'person' : 'admin');
    setState('in');
  };
  useEffect(() => {
    const off = onSignedOut(() => setState('out'));
    api('session')
      .then(signedIn)
      .catch((e) => setState(e?.status === 401 ? 'out' : `error: ${errorText(e)}`));
    return off;
  }, []);
  if (state === 'checking') return html`<main id="main"><p role="status">Loading…</p></main>`;
  if (state === 'out') return html`<${SignIn} onSignedIn=${signedIn} />`;
  if (state === 'in') return html`<${Shell} role=${role} key=${role} onSignOut=${() => (setCsrf(''), setState('out'))} />`;
  return html`<main id="main"><${Notice} kind="error">${state}<//></main>`;
}

const root = document.getElementById('app');
if (root !== null) render(html`<${App} />`, root);
