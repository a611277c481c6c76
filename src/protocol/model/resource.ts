/**
 * Resource shapes: `Resource`, `ResourceTemplate` and resource contents.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/resources
 * @module
 */

import { array, number, object, optional, string, type Infer } from '../../util/schema.js';
import { Annotations, Icon, Meta, select } from './common.js';

/** A resource the server can read. */
export const Resource = object({
  uri: string(),
  name: string(),
  title: optional(string()),
  description: optional(string()),
  mimeType: optional(string()),
  annotations: optional(Annotations),
  size: optional(number({ minimum: 0 })),
  icons: optional(array(Icon)),
  _meta: optional(Meta),
});
/** @see {@link Resource} */
export type Resource = Infer<typeof Resource>;

/** A family of resources addressed by an RFC 6570 URI template. */
export const ResourceTemplate = object({
  uriTemplate: string(),
  name: string(),
  title: optional(string()),
  description: optional(string()),
  mimeType: optional(string()),
  annotations: optional(Annotations),
  icons: optional(array(Icon)),
  _meta: optional(Meta),
});
/** @see {@link ResourceTemplate} */
export type ResourceTemplate = Infer<typeof ResourceTemplate>;

/** Text contents of a resource. */
export const TextResourceContents = object({
  uri: string(),
  mimeType: optional(string()),
  text: string(),
  _meta: optional(Meta),
});
/** @see {@link TextResourceContents} */
export type TextResourceContents = Infer<typeof TextResourceContents>;

/** Binary contents of a resource, base64-encoded. */
export const BlobResourceContents = object({
  uri: string(),
  mimeType: optional(string()),
  blob: string(),
  _meta: optional(Meta),
});
/** @see {@link BlobResourceContents} */
export type BlobResourceContents = Infer<typeof BlobResourceContents>;

/** Text or blob contents. */
export const ResourceContents = select([TextResourceContents, BlobResourceContents], (v) => ('blob' in v && !('text' in v) ? 1 : 0));
/** @see {@link ResourceContents} */
export type ResourceContents = Infer<typeof ResourceContents>;

