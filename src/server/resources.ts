/**
 * Resources and resource templates: registration records, the wire forms for the list
 * methods, and reading a URI (exact resources first, then templates in registration order).
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/resources
 * @module
 */
import { UriTemplate } from '../util/uriTemplate.js';
import type { ForwardedCompleter, ForwardedHandler } from './types.js';
import type { CacheHints, HandlerContext, ResourceContentsInput, ResourceDefinition, ResourceHandler, ResourceReturn, ResourceTemplateDefinition, TemplateHandler } from './types.js';

/** A registered fixed resource. */
export interface RegisteredResource {
  readonly key: string;
  readonly uri: string;
  readonly wire: Readonly<Record<string, unknown>>;
  readonly handler: ResourceHandler;
  readonly cache: CacheHints | undefined;
  disabled: boolean;
  /** Set for a forwarded resource (`forwardResource`). */
  readonly forward?: ForwardedHandler<Record<string, unknown>>;
}

/** A registered resource template. */
export interface RegisteredTemplate {
  readonly key: string;
  readonly template: UriTemplate;
  readonly wire: Readonly<Record<string, unknown>>;
  readonly definition: ResourceTemplateDefinition;
  readonly handler: TemplateHandler;
  disabled: boolean;
  /** Set for a forwarded template (`forwardTemplate`). */
  readonly forward?: ForwardedHandler<Record<string, unknown>>;
  /** `completion/complete` of a forwarded template. */
  readonly forwardComplete?: ForwardedCompleter;
}

function describe(def: Omit<ResourceDefinition, 'cache'>): Record<string, unknown> {
  const out: Record<string, unknown> = { name: def.name };
  if (def.title !== undefined) out['title'] = def.title;
  if (def.description !== undefined) out['description'] = def.description;
  if (def.mimeType !== undefined) out['mimeType'] = def.mimeType;
  if (def.size !== undefined) out['size'] = def.size;
  if (def.icons !== undefined) out['icons'] = [...def.icons];
  if (def.annotations !== undefined) out['annotations'] = { ...def.annotations };
  if (def._meta !== undefined) out['_meta'] = { ...def._meta };
  return out;
}

/** Builds the record of a fixed resource. */
export function makeResource(uri: string, definition: ResourceDefinition, handler: ResourceHandler): RegisteredResource {
  const { cache, ...rest } = definition;
  return { key: uri, uri, wire: Object.freeze({ uri, ...describe(rest) }), handler, cache, disabled: false };
}

/** Builds the record of a template. Throws a TypeError for an invalid RFC 6570 template. */
export function makeTemplate(uriTemplate: string, definition: ResourceTemplateDefinition, handler: TemplateHandler): RegisteredTemplate {
  const template = new UriTemplate(uriTemplate);
  const { cache: _cache, complete: _complete, list: _list, ...rest } = definition;
  return { key: uriTemplate, template, wire: Object.freeze({ uriTemplate, ...describe(rest) }), definition, handler, disabled: false };
}

/** The wire form of what a resource handler returned; `uri` fills contents that omit it. */
export function toReadResult(returned: ResourceReturn, uri: string): Record<string, unknown> & { contents: unknown[] } {
  const contents = Array.isArray(returned) ? returned : (returned as { contents: readonly unknown[] }).contents;
  const result: Record<string, unknown> & { contents: unknown[] } = {
    contents: contents.map((c) => (typeof c === 'object' && c !== null && !('uri' in c) ? { uri, ...c } : c)),
  };
  if (!Array.isArray(returned)) {
    const meta = (returned as { _meta?: unknown })._meta;
    if (meta !== undefined) result['_meta'] = meta;
  }
  return result;
}

/**
 * `returned` with the declared `mimeType` on each content of `uri` (or without a uri) that
 * gives none: a resource declared `application/json` reads back as `application/json`.
 */
export function withDeclaredMimeType(returned: ResourceReturn, mimeType: unknown, uri: string): ResourceReturn {
  if (typeof mimeType !== 'string') return returned;
  const fill = (contents: readonly ResourceContentsInput[]): ResourceContentsInput[] =>
    contents.map((c) => {
      if (typeof c !== 'object' || c === null || 'mimeType' in c) return c;
      const own = (c as { uri?: unknown }).uri;
      return own === undefined || own === uri ? { ...c, mimeType } : c;
    });
  if (Array.isArray(returned)) return fill(returned as readonly ResourceContentsInput[]);
  const whole = returned as Exclude<ResourceReturn, readonly ResourceContentsInput[]>;
  return { ...whole, contents: fill(whole.contents) };
}

/** The handler that serves `uri` (contents carry the declared `mimeType`), with its cache hints, or undefined. */
export function findReader(
  uri: string,
  byUri: (uri: string) => RegisteredResource | undefined,
  templates: readonly RegisteredTemplate[],
): { read: (context: HandlerContext) => Promise<ResourceReturn>; cache: CacheHints | undefined; forward?: ForwardedHandler<Record<string, unknown>> } | undefined {
  const exact = byUri(uri);
  if (exact !== undefined && !exact.disabled) {
    return { read: async (ctx) => withDeclaredMimeType(await exact.handler(uri, ctx), exact.wire['mimeType'], uri), cache: exact.cache, ...(exact.forward !== undefined ? { forward: exact.forward } : {}) };
  }
  for (const t of templates) {
    if (t.disabled) continue;
    const variables = t.template.match(uri);
    if (variables !== undefined) {
      return { read: async (ctx) => withDeclaredMimeType(await t.handler(uri, variables, ctx), t.wire['mimeType'], uri), cache: t.definition.cache, ...(t.forward !== undefined ? { forward: t.forward } : {}) };
    }
  }
  return undefined;
}
