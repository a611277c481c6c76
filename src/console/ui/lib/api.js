// @ts-check
/**
 * The console's JSON API client: same-origin `fetch` under `/console/api/` with the session
 * cookie and the CSRF token on every state-changing request, and the server-sent event stream.
 * The contract is in the console-core notes (paths, shapes); this module is the only place
 * that knows them.
 *
 * @module
 */

/** Where the API lives. */
export const API_BASE = '/console/api/';

/** A failed API call: HTTP status and the server's `error` text. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** The CSRF token of the signed-in session (sent as `x-csrf-token`). */
let csrf = '';
/** Listeners told when the session ends (a 401 from any call). */
/** @type {Set<() => void>} */
const signedOut = new Set();

/** Remembers the CSRF token handed out at sign-in or by the session call. */
export function setCsrf(/** @type {string} */ token) {
  csrf = token;
}

/** Registers `fn` to run when a call finds the session gone; returns the unregister function. */
export function onSignedOut(/** @type {() => void} */ fn) {
  signedOut.add(fn);
  return () => signedOut.delete(fn);
}

/**
 * Calls the API. `body` is sent as JSON; the result is the parsed JSON (or the text for
 * non-JSON answers). A non-2xx answer throws {@link ApiError}; a 401 also signs out.
 * @param {string} path relative to {@link API_BASE}
 * @param {{ method?: string, body?: unknown, signal?: AbortSignal }} [init]
 * @returns {Promise<any>}
 */
export async function api(path, init = {}) {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrf !== '') headers['x-csrf-token'] = csrf;
  const response = await fetch(API_BASE + path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal !== undefined ? { signal: init.signal } : {}),
  });
  const type = response.headers.get('content-type') ?? '';
  const payload = type.includes('json') ? await response.json().catch(() => undefined) : await response.text();
  if (!response.ok) {
    if (response.status === 401) for (const fn of signedOut) fn();
    const message = payload !== null && typeof payload === 'object' && typeof payload.error === 'string' ? payload.error : `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return payload;
}

/** The one shared event stream (opened on first use, closed when nobody listens). */
/** @type {EventSource | undefined} */
let source;
/** @type {Map<string, Set<(data: any) => void>>} */
const listeners = new Map();
/** Event types already hooked on {@link source}. */
const hooked = new Set();

/** Closes the shared stream (sign-out). */
export function closeEvents() {
  source?.close();
  source = undefined;
  hooked.clear();
}

/**
 * Listens to the server-sent event stream (`GET events`): `on[type]` gets each event's data
 * parsed as JSON. One EventSource serves every listener of the page (no polling; the browser
 * reconnects by itself). Returns the function that removes these listeners.
 * @param {Record<string, (data: any) => void>} on
 */
export function subscribe(on) {
  if (source === undefined) source = new EventSource(API_BASE + 'events', { withCredentials: true });
  const open = /** @type {EventSource} */ (source);
  for (const [type, fn] of Object.entries(on)) {
    let set = listeners.get(type);
    if (set === undefined) listeners.set(type, (set = new Set()));
    set.add(fn);
    if (!hooked.has(type)) {
      hooked.add(type);
      open.addEventListener(type, (event) => {
        const raw = /** @type {MessageEvent} */ (event).data;
        let data;
        try {
          data = JSON.parse(raw);
        } catch {
          data = raw;
        }
        for (const f of listeners.get(type) ?? []) f(data);
      });
    }
  }
  return () => {
    for (const [type, fn] of Object.entries(on)) listeners.get(type)?.delete(fn);
    if ([...listeners.values()].every((set) => set.size === 0)) closeEvents();
  };
}
