/**
 * Resource URIs and URI templates of several servers in one namespace.
 *
 * URIs are kept as the server wrote them unless two servers list the same one: then the first
 * server keeps it and each later one exposes it rewritten as `<serverId>+<uri>`
 * (`memory+file:///a`). Server ids cannot contain `+`, so the rewrite is reversible; a
 * template is rewritten the same way (the prefix is literal text, its `{vars}` are untouched),
 * so a URI expanded from a rewritten template carries the prefix too. In mode `never` such a
 * collision is a {@link NamespaceCollisionError} instead, as is a rewritten form another server
 * already lists verbatim (squatting). `assign*` is atomic: when it throws nothing changes.
 *
 * Collisions are decided on identical strings. {@link UriNamespacer.resolve} finds the server
 * of a URI by: an exposed resource URI; a `<serverId>+` prefix of a server with rewritten
 * entries; otherwise the first registered server whose (unrewritten) template matches.
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources
 * @module
 */
import { UriTemplate } from '../util/uriTemplate.js';
import type { NamespacingMode } from './configTypes.js';
import { NamespaceCollisionError, type NameOwner } from './namespacing.js';

/** Where an exposed URI comes from. */
export interface UriOwner {
  readonly serverId: string;
  readonly uri: string;
}

/** `uri` (or a URI template) prefixed with its server: `<serverId>+<uri>`. */
export function rewriteUri(serverId: string, uri: string): string {
  return `${serverId}+${uri}`;
}

/**
 * The server id and original URI (or template) of a {@link rewriteUri} result, or `undefined`
 * when `exposed` has no `<serverId>+` prefix. Pure text: it cannot tell a rewritten URI from a
 * real scheme such as `svn+ssh:` — {@link UriNamespacer.resolve} can.
 */
export function restoreUri(exposed: string): UriOwner | undefined {
  const match = /^([A-Za-z0-9_-]{1,32})\+(.+)$/s.exec(exposed);
  return match === null ? undefined : { serverId: match[1] as string, uri: match[2] as string };
}

type UriKind = 'resource' | 'resource template';

interface Entries {
  /** exposed → owner. */
  readonly live: Map<string, NameOwner>;
  /** serverId → original → exposed, in registration order of servers. */
  readonly byServer: Map<string, Map<string, string>>;
}

/** Assigns exposed resource URIs and templates and resolves them back. */
export class UriNamespacer {
  readonly mode: NamespacingMode;
  readonly #resources: Entries = { live: new Map(), byServer: new Map() };
  readonly #templates: Entries = { live: new Map(), byServer: new Map() };
  readonly #parsed = new Map<string, UriTemplate | undefined>();

  constructor(options: { readonly mode: NamespacingMode }) {
    this.mode = options.mode;
  }

  /** Sets `serverId`'s resource URIs (its whole list); returns original → exposed. */
  assignResources(serverId: string, uris: readonly string[]): ReadonlyMap<string, string> {
    return this.#assign('resource', this.#resources, serverId, uris);
  }

  /** Sets `serverId`'s resource templates (its whole list); returns original → exposed. */
  assignTemplates(serverId: string, templates: readonly string[]): ReadonlyMap<string, string> {
    return this.#assign('resource template', this.#templates, serverId, templates);
  }

  /** The server and original URI behind an exposed URI (e.g. from `resources/read`), or `undefined`. */
  resolve(exposed: string): UriOwner | undefined {
    const listed = this.#resources.live.get(exposed);
    if (listed !== undefined) return { serverId: listed.serverId, uri: listed.name };
    const prefixed = restoreUri(exposed);
    if (prefixed !== undefined && (this.#hasRewrites(this.#resources, prefixed.serverId) || this.#hasRewrites(this.#templates, prefixed.serverId))) return prefixed;
    for (const [serverId, templates] of this.#templates.byServer) {
      for (const [template, shown] of templates) {
        if (shown !== template) continue;
        if (this.#template(template)?.match(exposed) !== undefined) return { serverId, uri: exposed };
      }
    }
    return undefined;
  }

  /**
   * The exposed form of a URI `serverId` names (e.g. in `notifications/resources/updated`):
   * its listed form, the rewritten form when the server's templates are rewritten, or itself.
   */
  exposedUriOf(serverId: string, uri: string): string {
    const listed = this.#resources.byServer.get(serverId)?.get(uri);
    if (listed !== undefined) return listed;
    return this.#hasRewrites(this.#templates, serverId) ? rewriteUri(serverId, uri) : uri;
  }

  /** Drops `serverId`'s URIs and templates. */
  release(serverId: string): void {
    for (const entries of [this.#resources, this.#templates]) drop(entries, serverId);
  }

  #assign(kind: UriKind, entries: Entries, serverId: string, uris: readonly string[]): ReadonlyMap<string, string> {
    const result = new Map<string, string>();
    for (const uri of uris) {
      if (result.has(uri)) continue;
      const holder = entries.live.get(uri);
      if (holder === undefined || holder.serverId === serverId) {
        result.set(uri, uri);
        continue;
      }
      if (this.mode === 'never') throw new NamespaceCollisionError(kind, uri, holder.serverId, serverId);
      const rewritten = rewriteUri(serverId, uri);
      // Another server listing this very text would make the rewrite ambiguous: refuse.
      const squatter = entries.live.get(rewritten);
      if (squatter !== undefined && squatter.serverId !== serverId) throw new NamespaceCollisionError(kind, rewritten, squatter.serverId, serverId);
      result.set(uri, rewritten);
    }
    drop(entries, serverId);
    for (const [uri, exposed] of result) entries.live.set(exposed, { serverId, name: uri });
    entries.byServer.set(serverId, result);
    return result;
  }

  #hasRewrites(entries: Entries, serverId: string): boolean {
    const names = entries.byServer.get(serverId);
    if (names === undefined) return false;
    for (const [uri, exposed] of names) if (uri !== exposed) return true;
    return false;
  }

  #template(text: string): UriTemplate | undefined {
    if (!this.#parsed.has(text)) {
      let parsed: UriTemplate | undefined;
      try {
        parsed = new UriTemplate(text);
      } catch {
        parsed = undefined;
      }
      this.#parsed.set(text, parsed);
    }
    return this.#parsed.get(text);
  }
}

function drop(entries: Entries, serverId: string): void {
  const names = entries.byServer.get(serverId);
  if (names === undefined) return;
  for (const exposed of names.values()) entries.live.delete(exposed);
  entries.byServer.delete(serverId);
}
