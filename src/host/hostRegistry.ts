/**
 * The host's registry, computed: each server's vetted catalog exposed under the names and URIs
 * namespacing assigns ({@link exposeServer}), the items the trust layer withholds with the names
 * they would have, and what changed between two such registries ({@link changesOf}). The
 * {@link Host} keeps the result and announces the changes.
 *
 * @module
 */
import type { Catalog } from './downstream.js';
import type { ExposedPrompt, ExposedResource, ExposedTemplate, ExposedTool, HostChange, WithheldItem } from './hostTypes.js';
import type { Namespacer } from './namespacing.js';
import type { QuarantinedItem } from './catalogVetting.js';
import type { UriNamespacer } from './uriNamespacing.js';
import { UriTemplate } from '../util/uriTemplate.js';

/** Everything the host exposes, and what it withholds. */
export interface Exposure {
  readonly tools: ExposedTool[];
  readonly prompts: ExposedPrompt[];
  readonly resources: ExposedResource[];
  readonly templates: ExposedTemplate[];
  readonly withheld: WithheldItem[];
}

/** The start window (`HostOptions.startWindowMs`, default 10 s): resolves when `started` settles or after `ms`, whichever is first. */
export function startWindow(started: Promise<unknown>, ms = 10_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([started.then(() => undefined), elapsed]).finally(() => clearTimeout(timer));
}

/** A registry with nothing in it, to fill with {@link exposeServer}. */
export function emptyExposure(): Exposure {
  return { tools: [], prompts: [], resources: [], templates: [], withheld: [] };
}

/**
 * Adds one server's catalog to `into`, under the names `names` and `uris` assign; `allowed` is
 * the server's tool filter. Withheld tools and prompts keep their names (a call gets the reason,
 * and approving changes no name); a withheld resource keeps the URI it would have. Throws when a
 * name cannot be assigned (`never` namespacing and a collision): then nothing of the server was added.
 */
export function exposeServer(
  server: { readonly id: string; readonly catalog: Catalog; readonly quarantined: readonly QuarantinedItem[] },
  allowed: (toolName: string) => boolean,
  names: Namespacer,
  uris: UriNamespacer,
  into: Exposure,
): void {
  const { id, catalog } = server;
  const tools = catalog.tools.filter((t) => allowed(t.name));
  const held = server.quarantined.filter((q) => q.kind !== 'tool' || allowed(q.name));
  const heldNames = (kind: string): string[] => held.filter((q) => q.kind === kind).map((q) => q.name);
  const toolNames = names.assign('tool', id, [...tools.map((t) => t.name), ...heldNames('tool')]);
  const promptNames = names.assign('prompt', id, [...catalog.prompts.map((p) => p.name), ...heldNames('prompt')]);
  const resourceUris = uris.assignResources(id, catalog.resources.map((r) => r.uri));
  const templateUris = uris.assignTemplates(id, catalog.templates.map((t) => t.uriTemplate));
  for (const q of held) {
    const exposedName = (q.kind === 'tool' ? toolNames.get(q.name) : q.kind === 'prompt' ? promptNames.get(q.name) : q.kind === 'resource' ? uris.exposedUriOf(id, q.name) : undefined) ?? q.name;
    into.withheld.push(Object.freeze({ ...q, serverId: id, exposedName }));
  }
  for (const t of tools) {
    const name = toolNames.get(t.name) as string;
    into.tools.push(Object.freeze({ name, serverId: id, definition: t, tool: name === t.name ? t : { ...t, name } }));
  }
  for (const p of catalog.prompts) {
    const name = promptNames.get(p.name) as string;
    into.prompts.push(Object.freeze({ name, serverId: id, definition: p, prompt: name === p.name ? p : { ...p, name } }));
  }
  for (const r of catalog.resources) {
    const uri = resourceUris.get(r.uri) as string;
    into.resources.push(Object.freeze({ uri, serverId: id, definition: r, resource: uri === r.uri ? r : { ...r, uri } }));
  }
  for (const t of catalog.templates) {
    const uriTemplate = templateUris.get(t.uriTemplate) as string;
    into.templates.push(Object.freeze({ uriTemplate, serverId: id, definition: t, template: uriTemplate === t.uriTemplate ? t : { ...t, uriTemplate } }));
  }
}

/** The kinds of change between two registries, in the order the host announces them. */
export function changesOf(before: { readonly [K in keyof Exposure]: readonly Exposure[K][number][] }, after: Exposure): HostChange[] {
  const changed: HostChange[] = [];
  if (!sameList(before.tools, after.tools, (t) => t.name)) changed.push('tools');
  if (!sameList(before.prompts, after.prompts, (p) => p.name)) changed.push('prompts');
  if (!sameList(before.resources, after.resources, (r) => r.uri)) changed.push('resources');
  if (!sameList(before.templates, after.templates, (t) => t.uriTemplate)) changed.push('templates');
  const heldKey = (w: WithheldItem): string => `${w.serverId}\n${w.kind}\n${w.name}\n${w.reason}`;
  if (before.withheld.map(heldKey).join('\0') !== after.withheld.map(heldKey).join('\0')) changed.push('withheld');
  return changed;
}

/** Same definitions (by identity: a catalog is replaced whole on refresh) under the same exposed keys. */
function sameList<T extends { readonly definition: unknown }>(a: readonly T[], b: readonly T[], key: (entry: T) => string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as T;
    const y = b[i] as T;
    if (x.definition !== y.definition || key(x) !== key(y)) return false;
  }
  return true;
}

/**
 * Where a `completion/complete` ref goes: a `ref/prompt` to its prompt's server (with the
 * prompt's own name), a `ref/resource` to its template's server (with its own URI template) or
 * the server of a URI; `serverId` undefined when nothing exposes it; undefined for a malformed ref.
 */
export function completionTarget(
  ref: unknown,
  prompt: (name: string) => ExposedPrompt | undefined,
  templates: readonly ExposedTemplate[],
  uris: UriNamespacer,
): { readonly kind: 'prompt' | 'resource'; readonly exposedName: string; readonly serverId?: string; readonly ownRef?: Record<string, unknown> } | undefined {
  if (typeof ref !== 'object' || ref === null) return undefined;
  const r = ref as Record<string, unknown>;
  if (r['type'] === 'ref/prompt' && typeof r['name'] === 'string') {
    const exposed = prompt(r['name']);
    return exposed === undefined ? { kind: 'prompt', exposedName: r['name'] } : { kind: 'prompt', exposedName: r['name'], serverId: exposed.serverId, ownRef: { ...r, name: exposed.definition.name } };
  }
  if (r['type'] === 'ref/resource' && typeof r['uri'] === 'string') {
    const template = templates.find((t) => t.uriTemplate === r['uri']);
    const owner = template === undefined ? uris.resolve(r['uri']) : { serverId: template.serverId, uri: template.definition.uriTemplate };
    return owner === undefined ? { kind: 'resource', exposedName: r['uri'] } : { kind: 'resource', exposedName: r['uri'], serverId: owner.serverId, ownRef: { ...r, uri: owner.uri } };
  }
  return undefined;
}

/** A withheld template's matcher, or undefined when its text is no valid URI template. */
export function parseTemplate(text: string): UriTemplate | undefined {
  try {
    return new UriTemplate(text);
  } catch {
    return undefined;
  }
}
