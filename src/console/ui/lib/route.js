// @ts-check
/**
 * Hash routing: `#/<page>?key=value`. The page name and its query are read from
 * `location.hash`; {@link useRoute} re-renders on every `hashchange`.
 *
 * @module
 */
import { useEffect, useState } from './html.js';

/** @typedef {{ page: string, rest: string, query: URLSearchParams }} Route */

/**
 * The route in `hash` (default page `overview`): `#/inspector/echo?x=1` is page `inspector`,
 * rest `echo`, query `x=1`.
 * @returns {Route}
 */
export function parseRoute(/** @type {string} */ hash) {
  const raw = hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const slash = path.indexOf('/');
  const page = (slash < 0 ? path : path.slice(0, slash)) || 'overview';
  const rest = slash < 0 ? '' : decodeURIComponent(path.slice(slash + 1));
  return { page, rest, query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

/** The href of `page` (with an optional sub-path such as a server id). */
export function href(/** @type {string} */ page, /** @type {string} */ rest = '') {
  return `#/${page}${rest === '' ? '' : `/${encodeURIComponent(rest)}`}`;
}

/** The current route, updated on navigation. @returns {Route} */
export function useRoute() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
