/**
 * Params and results of the `resources/*` methods and resource notifications.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/resources
 * @module
 */

import { array, extend, string, type Infer } from '../../util/schema.js';
import { CacheableResult, NotificationParams, PaginatedParams, RequestParams, paginatedShape } from './common.js';
import { inputResponseShape } from './mrtr.js';
import { Resource, ResourceContents, ResourceTemplate } from './resource.js';

/** `resources/list` params. */
export const ListResourcesParams = PaginatedParams;
/** @see {@link ListResourcesParams} */
export type ListResourcesParams = Infer<typeof ListResourcesParams>;

/** `resources/list` result (cacheable in 2026-07-28). */
export const ListResourcesResult = extend(CacheableResult, { ...paginatedShape, resources: array(Resource) });
/** @see {@link ListResourcesResult} */
export type ListResourcesResult = Infer<typeof ListResourcesResult>;

/** `resources/templates/list` params. */
export const ListResourceTemplatesParams = PaginatedParams;
/** @see {@link ListResourceTemplatesParams} */
export type ListResourceTemplatesParams = Infer<typeof ListResourceTemplatesParams>;

/** `resources/templates/list` result (cacheable in 2026-07-28). */
export const ListResourceTemplatesResult = extend(CacheableResult, {
  ...paginatedShape,
  resourceTemplates: array(ResourceTemplate),
});
/** @see {@link ListResourceTemplatesResult} */
export type ListResourceTemplatesResult = Infer<typeof ListResourceTemplatesResult>;

/** Params naming one resource (`resources/subscribe`, `resources/unsubscribe`). */
export const ResourceRequestParams = extend(RequestParams, { uri: string() });
/** @see {@link ResourceRequestParams} */
export type ResourceRequestParams = Infer<typeof ResourceRequestParams>;

/** `notifications/resources/updated` params. */
export const ResourceUpdatedParams = extend(NotificationParams, { uri: string() });
/** @see {@link ResourceUpdatedParams} */
export type ResourceUpdatedParams = Infer<typeof ResourceUpdatedParams>;

/** `resources/read` result (cacheable in 2026-07-28). */
export const ReadResourceResult = extend(CacheableResult, { contents: array(ResourceContents) });
/** @see {@link ReadResourceResult} */
export type ReadResourceResult = Infer<typeof ReadResourceResult>;

/** `resources/read` params (`inputResponses`/`requestState` are MRTR retries, 2026-07-28). */
export const ReadResourceParams = extend(RequestParams, { uri: string(), ...inputResponseShape });
/** @see {@link ReadResourceParams} */
export type ReadResourceParams = Infer<typeof ReadResourceParams>;
