/**
 * The signed manifest of a server (see `protocol/manifest.ts` and `docs/signing.md`): when an
 * `McpServer` is given a signing key it publishes, by itself, a JWS over the digests of its
 * enabled tools, prompts and resource templates in the `_meta` of every `tools/list`,
 * `prompts/list` and `resources/templates/list` result, and over HTTP at the well-known path.
 * The JWS is made once per change of the registries, not per request.
 *
 * @module
 */
import {
  MANIFEST_META_KEY,
  manifestPayload,
  signManifest,
  type ManifestEnvelope,
  type ManifestSigningKey,
} from '../protocol/manifest.js';

/** The `signing` option of an `McpServer`. */
export interface ServerSigningOptions {
  /** The key (`importSigningKey` of the private JWK `switchboard keygen` wrote). */
  readonly key: ManifestSigningKey;
  /** Rotation statements that lead from a key hosts pinned earlier to `key`, oldest first. */
  readonly rotations?: readonly string[];
  /** The clock, in ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** What the publisher reads of a registry. */
export interface SignedList {
  all(): readonly { readonly disabled: boolean; readonly wire: unknown }[];
  onChange(listener: () => void): () => void;
}

/** Signs the current lists once per change. */
export class ManifestPublisher {
  readonly #options: ServerSigningOptions;
  readonly #name: string;
  readonly #registries: { tools: SignedList; prompts: SignedList; templates: SignedList };
  #envelope: Promise<ManifestEnvelope> | undefined;

  constructor(name: string, registries: { tools: SignedList; prompts: SignedList; templates: SignedList }, options: ServerSigningOptions) {
    this.#name = name;
    this.#options = options;
    this.#registries = registries;
    for (const registry of Object.values(registries)) registry.onChange(() => (this.#envelope = undefined));
  }

  /** The envelope for the current lists (signed on first use after a change). */
  envelope(): Promise<ManifestEnvelope> {
    if (this.#envelope !== undefined) return this.#envelope;
    const wire = (r: SignedList): never[] => r.all().filter((e) => !e.disabled).map((e) => e.wire) as never[];
    const payload = manifestPayload(
      this.#name,
      { tools: wire(this.#registries.tools), prompts: wire(this.#registries.prompts), resourceTemplates: wire(this.#registries.templates) },
      Math.floor((this.#options.now ?? Date.now)() / 1000),
    );
    const rotations = this.#options.rotations;
    const pending = signManifest(payload, this.#options.key).then((jws): ManifestEnvelope => (rotations !== undefined && rotations.length > 0 ? { jws, rotations: [...rotations] } : { jws }));
    pending.catch(() => (this.#envelope = undefined));
    return (this.#envelope = pending);
  }

  /** The `_meta` member to add to a list result. */
  async meta(): Promise<Record<string, unknown>> {
    return { [MANIFEST_META_KEY]: await this.envelope() };
  }
}
