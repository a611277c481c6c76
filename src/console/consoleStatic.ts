/**
 * The console's page files: `GET /console/` is `index.html`, `GET /console/assets/<path>` any
 * other file the build put in `dist/console/ui/` (the page's modules, styles, and the vendored
 * Preact and htm). Files are read through an injected {@link AssetReader} (the CLI reads the
 * folder; this layer has no file system), only for known extensions and paths without `..`,
 * hidden segments or backslashes; they hold no data, so no session is needed.
 *
 * @module
 */
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';
import { failure } from './consoleResponses.js';

/** Reads one file below `dist/console/` by its relative path; undefined when there is none. */
export type AssetReader = (relativePath: string) => Promise<Uint8Array | undefined>;

/** The prefix of asset URLs. */
export const ASSETS_PREFIX = '/console/assets/';

const TYPES: Readonly<Record<string, string>> = Object.freeze({
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  json: 'application/json; charset=utf-8',
  woff2: 'font/woff2',
});

/** The content type of a served file, or undefined for an extension the console never serves. */
export function assetType(path: string): string | undefined {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : TYPES[path.slice(dot + 1).toLowerCase()];
}

/** A relative asset path, checked: no traversal, no hidden or empty segments. */
export function safeAssetPath(raw: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (path.includes('\\') || path.includes('\0')) return undefined;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) return undefined;
  return assetType(path) === undefined ? undefined : path;
}

/** Serves the page files (undefined for a path that is not one). */
export async function serveStatic(request: HttpRequestLike, read: AssetReader): Promise<HttpResponseLike | undefined> {
  const { path } = request;
  let file: string | undefined;
  if (path === '/console/' || path === '/console/index.html') file = 'index.html';
  else if (path.startsWith(ASSETS_PREFIX)) {
    file = safeAssetPath(path.slice(ASSETS_PREFIX.length));
    if (file === undefined) return failure(404, 'no such console file');
  } else return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') return failure(405, 'GET only', { allow: 'GET, HEAD' });
  const bytes = await read(file);
  if (bytes === undefined) {
    return file === 'index.html' ? failure(503, 'the console files are not built (run npm run build)') : failure(404, 'no such console file');
  }
  const headers = { 'content-type': assetType(file) as string, 'cache-control': 'no-cache' };
  return { status: 200, headers, ...(request.method === 'HEAD' ? {} : { body: bytes }) };
}
