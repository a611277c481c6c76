/**
 * The resources of the `everything` server: a static text and a static binary resource, the
 * `test://template/{id}/data` template (with completion of `id`), and `test://watched-resource`,
 * whose content changes on a timer and is announced with `notifications/resources/updated`
 * to the listen streams subscribed to it.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/resources
 * @module
 */
import type { McpServer } from '../../server/mcpServer.js';
import type { CacheHints } from '../../server/types.js';
import { PNG_BASE64 } from './fixtures.js';

/** URI of the static text resource. */
export const STATIC_TEXT_URI = 'test://static-text';
/** URI of the static binary (PNG) resource. */
export const STATIC_BINARY_URI = 'test://static-binary';
/** The resource template. */
export const TEMPLATE_URI = 'test://template/{id}/data';
/** URI of the resource that changes over time. */
export const WATCHED_URI = 'test://watched-resource';
/** The text of the static text resource. */
export const STATIC_TEXT = 'This is the content of the static text resource.';
/** The ids the template's `id` completion offers. */
export const TEMPLATE_IDS: readonly string[] = ['1', '2', '3', '42', '123', '1000'];

/** Static content may be cached by anyone for a minute. */
const STATIC_CACHE: CacheHints = { ttlMs: 60_000, cacheScope: 'public' };
/** The watched resource changes: never cache it. */
const LIVE_CACHE: CacheHints = { ttlMs: 0, cacheScope: 'public' };

/** Options of {@link registerResources}. */
export interface ResourceOptions {
  /** Milliseconds between updates of the watched resource; 0 turns the timer off. */
  readonly watchIntervalMs: number;
}

/** Controls of the watched resource. */
export interface WatchedResource {
  /** Changes the content now and notifies subscribers; returns the new revision. */
  bump(): number;
}

/** The JSON the template returns for `id`. */
export function templateData(id: string): string {
  return JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });
}

/** Registers the resources and starts the watched resource's timer. */
export function registerResources(server: McpServer, options: ResourceOptions): WatchedResource {
  server.resource(
    STATIC_TEXT_URI,
    { name: 'static-text', title: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain', cache: STATIC_CACHE },
    (uri) => [{ uri, mimeType: 'text/plain', text: STATIC_TEXT }],
  );
  server.resource(
    STATIC_BINARY_URI,
    {
      name: 'static-binary',
      title: 'Static Binary Resource',
      description: 'A static binary resource (a 1x1 PNG) for testing',
      mimeType: 'image/png',
      cache: STATIC_CACHE,
    },
    (uri) => [{ uri, mimeType: 'image/png', blob: PNG_BASE64 }],
  );
  server.resourceTemplate(
    TEMPLATE_URI,
    {
      name: 'template',
      title: 'Resource Template',
      description: 'A resource template with parameter substitution',
      mimeType: 'application/json',
      cache: STATIC_CACHE,
      complete: { id: (value) => TEMPLATE_IDS.filter((id) => id.startsWith(value)) },
    },
    (uri, variables) => {
      const raw = variables['id'];
      const id = typeof raw === 'string' ? raw : (raw ?? []).join(',');
      return [{ uri, mimeType: 'application/json', text: templateData(id) }];
    },
  );

  let revision = 0;
  server.resource(
    WATCHED_URI,
    {
      name: 'watched-resource',
      title: 'Watched Resource',
      description: 'A resource whose content changes over time; subscribe to it on a listen stream',
      mimeType: 'text/plain',
      cache: LIVE_CACHE,
    },
    (uri) => [{ uri, mimeType: 'text/plain', text: `Watched resource content (revision ${revision})` }],
  );
  const watched: WatchedResource = {
    bump: () => {
      revision++;
      server.notifyResourceUpdated(WATCHED_URI);
      return revision;
    },
  };
  if (options.watchIntervalMs > 0) {
    const timer = setInterval(() => watched.bump(), options.watchIntervalMs);
    // The demo must never keep a process alive on its own.
    timer.unref();
    server.onClose(() => clearInterval(timer));
  }
  return watched;
}
