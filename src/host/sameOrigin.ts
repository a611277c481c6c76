/**
 * The cross-site request forgery rule of the admin routes (the consent API, the console):
 * a state-changing request (anything but GET/HEAD) must come from the gateway's own origin.
 * It adds to the front door's Host/Origin allow-list (which every route passes first, see
 * `frontDoor.ts`) and is stricter: another origin on the allow-list (a page on another
 * loopback port) may call the MCP endpoint, but it may not approve, deny or change anything.
 *
 * @see https://fetch.spec.whatwg.org/#origin-header
 * @see https://www.w3.org/TR/fetch-metadata/#sec-fetch-site-header
 * @module
 */
import type { HttpRequestLike } from '../transport/http/server/types.js';

/**
 * Why a state-changing request is refused as cross-origin, or undefined: `Sec-Fetch-Site:
 * cross-site`, or an `Origin` that is not `http(s)://<Host>`. A request without `Origin` is
 * not a browser's; it passes unless `originRequired`.
 */
export function crossOriginChange(request: HttpRequestLike, originRequired: boolean): string | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  if (request.header('sec-fetch-site') === 'cross-site') return 'cross-site requests are refused';
  const origin = request.header('origin');
  if (origin === undefined) return originRequired ? 'a state-changing request needs an Origin header (cross-origin requests are refused)' : undefined;
  const host = request.header('host');
  if (host === undefined || (origin !== `http://${host}` && origin !== `https://${host}`)) return `origin ${origin} is not this gateway's; cross-origin requests are refused`;
  return undefined;
}
