/**
 * `subscriptions/listen` (2026-07-28): one long-lived request whose response stream carries
 * the change notifications the client opted into.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 * @module
 */

import { array, boolean, extend, object, optional, string, type Infer } from '../../util/schema.js';
import { META_SUBSCRIPTION_ID } from '../meta.js';
import { NotificationParams, RequestId, RequestParams, Result } from './common.js';

/** Which notifications a listener wants (all opt-in); the tasks extension adds `taskIds`. */
export const SubscriptionFilter = object({
  toolsListChanged: optional(boolean()),
  promptsListChanged: optional(boolean()),
  resourcesListChanged: optional(boolean()),
  resourceSubscriptions: optional(array(string())),
  taskIds: optional(array(string())),
});
/** @see {@link SubscriptionFilter} */
export type SubscriptionFilter = Infer<typeof SubscriptionFilter>;

/** `subscriptions/listen` params. */
export const ListenParams = extend(RequestParams, { notifications: SubscriptionFilter });
/** @see {@link ListenParams} */
export type ListenParams = Infer<typeof ListenParams>;

/** `notifications/subscriptions/acknowledged` params: the granted subset. */
export const SubscriptionsAcknowledgedParams = extend(NotificationParams, { notifications: SubscriptionFilter });
/** @see {@link SubscriptionsAcknowledgedParams} */
export type SubscriptionsAcknowledgedParams = Infer<typeof SubscriptionsAcknowledgedParams>;

/** `_meta` of a listen-stream notification or of the graceful listen result. */
export const SubscriptionMeta = object({ [META_SUBSCRIPTION_ID]: RequestId });
/** @see {@link SubscriptionMeta} */
export type SubscriptionMeta = Infer<typeof SubscriptionMeta>;

/** The graceful-close result of `subscriptions/listen`: `_meta` names the subscription. */
export const ListenResult = extend(Result, { _meta: SubscriptionMeta });
/** @see {@link ListenResult} */
export type ListenResult = Infer<typeof ListenResult>;
