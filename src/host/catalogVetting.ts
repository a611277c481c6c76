/**
 * The seam between a server's catalog and the host's registry: before what a server listed
 * becomes visible, a {@link CatalogVetter} (the pins, `pins/pinTrust.ts`) decides which
 * definitions are served (the approved ones, byte for byte) and which are quarantined
 * (hidden, calls refused with the reason). It runs on every list the host makes of a server:
 * at start and after every list_changed.
 *
 * @module
 */
import type { Implementation, ItemKind } from '../protocol/model/common.js';
import type { ManifestEnvelope } from '../protocol/manifest.js';
import type { Prompt } from '../protocol/model/prompts.js';
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import type { Tool } from '../protocol/model/tool.js';
import type { DownstreamSpec } from './spec.js';

/** The four lists of a server. */
export interface CatalogLists {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
}

/** An item withheld from the model, and why (the refusal text of a call). */
export interface QuarantinedItem {
  readonly kind: ItemKind;
  /** Its own name, URI or URI template (before namespacing). */
  readonly name: string;
  readonly reason: string;
}

/** What a vetter sees of one list of a server. */
export interface VetInput {
  /** The configured id. */
  readonly serverId: string;
  readonly spec: DownstreamSpec;
  readonly serverInfo: Implementation | undefined;
  readonly instructions: string | undefined;
  /** The lists exactly as received. */
  readonly catalog: CatalogLists;
  /** The signed manifest in the list results' `_meta`, if any. */
  readonly envelope: ManifestEnvelope | undefined;
}

/** The vetted lists: what may be served, and what is withheld. */
export interface VetResult {
  readonly catalog: CatalogLists;
  readonly quarantined: readonly QuarantinedItem[];
  /** The approved instructions (undefined: none approved). */
  readonly instructions: string | undefined;
}

/** Decides what of a server's lists is served. Must not throw: failures quarantine (fail closed). */
export interface CatalogVetter {
  vet(input: VetInput): Promise<VetResult>;
}
