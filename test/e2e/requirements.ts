/**
 * The server-side MUSTs of MCP 2026-07-28 that the end-to-end suite shows on the wire, by
 * their number in the project's MUST checklist of https://modelcontextprotocol.io/specification/2026-07-28
 * (section 4; the ids are that checklist's numbering). Pure data: every id here must
 * be cited by at least one `verifies(id, ...)` (enforced by `coverage.test.ts`).
 *
 * Skipped on purpose (not server-side, or not wire-visible from a server's end):
 * - client-only MUSTs: 3-5, 9-11, 16, 34, 42-44, 51, 62-66, 70, 71, 75, 76, 79, 80, 89, 90, 93,
 *   97-102, 106, 111, 112, 117-120, 129-133, 136, 137, 142, 143, 239, 262, 263, 265, 276-278,
 *   281-286, 289, 305-309, 314-317, 319, 322, 324, 327;
 * - authorization (no auth in this server; the HTTP auth layer has its own tests): 149-234;
 * - intermediary-only: 138, 148;
 * - elicitation/sampling/roots policy MUSTs that constrain what a handler author asks for
 *   (the library cannot show them on the wire): 279, 280, 287, 288, 290-304, 310-313, 318,
 *   320, 321, 323, 325, 326, 328;
 * - umbrella or unobservable from outside: 1 (umbrella), 15/17 (code allocation policy, shown
 *   indirectly by every error test), 22, 27, 30, 32, 33, 41, 47, 48, 61, 86, 134, 242, 243,
 *   248, 253, 257-260, 266, 268, 269, 275;
 * - MUST-72 (server-sent `notifications/cancelled` at listen teardown) contradicts the
 *   subscriptions page and schema (CHECKLIST section 6 #1): we verify the graceful close
 *   result (MUST-329) instead;
 * - x-mcp-header authoring rules 121, 123, 124, 126, 128 (unit-tested in
 *   `protocol/xMcpHeader`; 122, 125 and 127 stand for the family here).
 *
 * @module
 */

/** The transports the suite runs over. */
export type TransportName = 'memory' | 'stdio' | 'http';

/** One requirement. `transports` limits where it applies (default: all). */
export interface Requirement {
  readonly id: `MUST-${number}`;
  readonly url: string;
  readonly behaviour: string;
  readonly transports?: readonly TransportName[];
}

const SPEC = 'https://modelcontextprotocol.io/specification/2026-07-28';
const BASE = `${SPEC}/basic`;
const HTTP = `${SPEC}/basic/transports/streamable-http`;
const STDIO = `${SPEC}/basic/transports/stdio`;
const MRTR = `${SPEC}/basic/patterns/mrtr`;
const SUB = `${SPEC}/basic/patterns/subscriptions`;
const CANCEL = `${SPEC}/basic/patterns/cancellation`;
const PROGRESS = `${SPEC}/basic/patterns/progress`;
const TOOLS = `${SPEC}/server/tools`;
const RES = `${SPEC}/server/resources`;
const PROMPTS = `${SPEC}/server/prompts`;
const CACHE = `${SPEC}/server/utilities/caching`;
const COMP = `${SPEC}/server/utilities/completion`;
const LOG = `${SPEC}/server/utilities/logging`;

export const requirements = [
  // basic (base)
  { id: 'MUST-2', url: `${BASE}#messages`, behaviour: 'every message the server writes is JSON-RPC 2.0 (`jsonrpc: "2.0"`)' },
  { id: 'MUST-6', url: `${BASE}#responses`, behaviour: 'a result response echoes the request id exactly (string or integer, type preserved), also under concurrency' },
  { id: 'MUST-7', url: `${BASE}#responses`, behaviour: 'a result response carries `result`' },
  { id: 'MUST-8', url: `${BASE}#responses`, behaviour: 'every result carries `resultType`' },
  { id: 'MUST-12', url: `${BASE}#error-responses`, behaviour: 'an error response echoes the request id' },
  { id: 'MUST-13', url: `${BASE}#error-responses`, behaviour: 'an error carries `error.code` and `error.message`' },
  { id: 'MUST-14', url: `${BASE}#error-responses`, behaviour: 'error codes are integers' },
  { id: 'MUST-18', url: `${BASE}#error-codes`, behaviour: 'the server never emits -32002 or -32042 on 2026-07-28' },
  { id: 'MUST-19', url: `${BASE}#notifications`, behaviour: 'a notification gets no response' },
  { id: 'MUST-20', url: `${BASE}#notifications`, behaviour: 'notifications the server sends carry no `id`' },
  { id: 'MUST-21', url: `${BASE}#stateless-requests`, behaviour: 'no session state: removed methods (`initialize` with 2026 `_meta`, `ping`, `logging/setLevel`, `resources/subscribe`) are -32601 and change nothing' },
  { id: 'MUST-24', url: `${BASE}#json-schema-usage`, behaviour: 'a schema without `$schema` is JSON Schema 2020-12 (2020-12 keywords are honoured)' },
  { id: 'MUST-25', url: `${BASE}#json-schema-usage`, behaviour: 'tool arguments are validated against the declared dialect' },
  { id: 'MUST-26', url: `${BASE}#json-schema-usage`, behaviour: 'an unsupported dialect is refused with an error that names it unsupported' },
  { id: 'MUST-28', url: `${BASE}#json-schema-usage`, behaviour: 'a network `$ref` in a tool schema is never dereferenced (refused at registration, zero fetches)' },
  { id: 'MUST-29', url: `${BASE}#json-schema-usage`, behaviour: 'remote `$ref` fetching is off by default' },
  { id: 'MUST-35', url: `${BASE}#request-metadata`, behaviour: 'a request missing a required `_meta` field is rejected with -32602 naming the field' },
  { id: 'MUST-36', url: `${BASE}#request-metadata`, behaviour: 'on HTTP the missing-`_meta` rejection has status 400', transports: ['http'] },
  { id: 'MUST-37', url: `${BASE}#client-capabilities`, behaviour: 'capabilities are judged per request, never carried over from an earlier request' },
  { id: 'MUST-38', url: `${BASE}#client-capabilities`, behaviour: 'needing an undeclared client capability gives -32021 with `data.requiredCapabilities`' },
  { id: 'MUST-39', url: `${BASE}#client-capabilities`, behaviour: 'on HTTP -32021 has status 400', transports: ['http'] },
  { id: 'MUST-40', url: `${BASE}#meta`, behaviour: 'every notification on a listen stream carries `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen id' },
  // versioning
  { id: 'MUST-45', url: `${BASE}/versioning#negotiation`, behaviour: 'an unknown or unserved version gives -32022 with `data.supported` (and `requested`)' },
  { id: 'MUST-46', url: `${SPEC}/server/discover`, behaviour: '`server/discover` is implemented: supportedVersions, capabilities' },
  // message patterns
  { id: 'MUST-49', url: `${BASE}/patterns`, behaviour: 'the server never initiates JSON-RPC requests on 2026-07-28' },
  { id: 'MUST-50', url: MRTR, behaviour: 'client input is obtained through MRTR on 2026-07-28; the same handler sends a real `elicitation/create` on a 2025-11-25 session' },
  { id: 'MUST-52', url: MRTR, behaviour: 'no InputRequiredResult outside tools/call, prompts/get, resources/read' },
  { id: 'MUST-53', url: MRTR, behaviour: '`inputRequests` keys are unique and as the handler named them' },
  { id: 'MUST-54', url: MRTR, behaviour: '`inputRequests` values are elicitation/create, sampling/createMessage or roots/list requests' },
  { id: 'MUST-55', url: MRTR, behaviour: 'a returned `requestState` is attacker-controlled: garbage and tampered states are rejected with -32602' },
  { id: 'MUST-56', url: MRTR, behaviour: '`requestState` is integrity-protected and bound to the originating request (other params, other principal rejected)' },
  { id: 'MUST-57', url: MRTR, behaviour: 'a `requestState` that fails verification (tampered, expired, other principal) is rejected with -32602' },
  { id: 'MUST-58', url: MRTR, behaviour: 'a single-use `requestState` is rejected (-32602) when replayed' },
  { id: 'MUST-59', url: MRTR, behaviour: 'every InputRequiredResult has `inputRequests` or `requestState`' },
  { id: 'MUST-60', url: MRTR, behaviour: 'no input request of a kind the client did not declare (elicitation without the capability gives -32021)' },
  { id: 'MUST-67', url: SUB, behaviour: 'a listen stream carries only the notification types requested (and granted)' },
  { id: 'MUST-68', url: SUB, behaviour: '`notifications/subscriptions/acknowledged` is the first message of a subscription, with the granted filter' },
  { id: 'MUST-69', url: SUB, behaviour: 'nothing for a subscription before its ack, even with changes racing the listen' },
  { id: 'MUST-73', url: CANCEL, behaviour: 'the server sends `notifications/cancelled` for nothing but a listen teardown' },
  { id: 'MUST-74', url: CANCEL, behaviour: 'on HTTP a client disconnect cancels the request (the handler signal aborts)', transports: ['http'] },
  { id: 'MUST-78', url: CANCEL, behaviour: 'cancel-vs-completion races (late, unknown, duplicate cancels) are handled; the server keeps serving' },
  { id: 'MUST-81', url: PROGRESS, behaviour: '`progress` strictly increases across notifications of a request' },
  { id: 'MUST-82', url: PROGRESS, behaviour: 'progress only for a request that carried a progressToken, with that token' },
  { id: 'MUST-83', url: PROGRESS, behaviour: 'no progress after the response' },
  // transports
  { id: 'MUST-84', url: `${BASE}/transports`, behaviour: 'messages are UTF-8: non-ASCII text round-trips intact' },
  { id: 'MUST-85', url: `${BASE}/transports`, behaviour: 'the binding carries each client exactly its own responses (concurrent clients, per-client nonce)' },
  { id: 'MUST-87', url: STDIO, behaviour: 'stdio: one message per line, no embedded newlines (text with newlines stays one frame)', transports: ['stdio'] },
  { id: 'MUST-88', url: STDIO, behaviour: 'stdio: nothing but valid MCP messages on stdout', transports: ['stdio'] },
  { id: 'MUST-91', url: STDIO, behaviour: 'stdio: the server writes no JSON-RPC requests on 2026-07-28', transports: ['stdio'] },
  { id: 'MUST-92', url: STDIO, behaviour: 'stdio: after `notifications/cancelled` the handler aborts and nothing more is sent for that request', transports: ['stdio'] },
  { id: 'MUST-94', url: `${HTTP}#security-%26-endpoint`, behaviour: 'one endpoint that accepts POST (GET/DELETE are 405)', transports: ['http'] },
  { id: 'MUST-95', url: `${HTTP}#security-%26-endpoint`, behaviour: 'Origin is validated on every request', transports: ['http'] },
  { id: 'MUST-96', url: `${HTTP}#security-%26-endpoint`, behaviour: 'a present, foreign Origin gets 403 and is not dispatched', transports: ['http'] },
  { id: 'MUST-103', url: `${HTTP}#sending-messages-to-the-server`, behaviour: 'an accepted notification gets 202 with no body', transports: ['http'] },
  { id: 'MUST-104', url: `${HTTP}#sending-messages-to-the-server`, behaviour: 'an unacceptable notification gets an HTTP error status', transports: ['http'] },
  { id: 'MUST-105', url: `${HTTP}#sending-messages-to-the-server`, behaviour: 'a request is answered with application/json or text/event-stream', transports: ['http'] },
  { id: 'MUST-107', url: `${HTTP}#sending-messages-to-the-server`, behaviour: 'notifications on a request SSE stream relate to that request', transports: ['http'] },
  { id: 'MUST-108', url: `${HTTP}#sending-messages-to-the-server`, behaviour: 'no JSON-RPC requests on any SSE stream', transports: ['http'] },
  { id: 'MUST-109', url: `${HTTP}#cancellation`, behaviour: 'closing the SSE response stream cancels the request', transports: ['http'] },
  { id: 'MUST-110', url: `${HTTP}#cancellation`, behaviour: 'nothing further is processed/sent for a request cancelled by stream close', transports: ['http'] },
  { id: 'MUST-113', url: `${HTTP}#protocol-version-header`, behaviour: 'header/body version mismatch gives 400 + -32020', transports: ['http'] },
  { id: 'MUST-114', url: `${HTTP}#protocol-version-header`, behaviour: 'an unsupported version gives 400 + -32022', transports: ['http'] },
  { id: 'MUST-115', url: `${HTTP}#sending-messages-to-the-server`, behaviour: 'an unimplemented method gives 404 + -32601', transports: ['http'] },
  { id: 'MUST-116', url: `${HTTP}#protocol-version-header`, behaviour: 'a request without MCP-Protocol-Version is rejected (no pre-2025-06-18 support)', transports: ['http'] },
  { id: 'MUST-122', url: `${TOOLS}#x-mcp-header`, behaviour: 'an `x-mcp-header` name that is not an RFC 9110 token is refused at registration' },
  { id: 'MUST-125', url: `${TOOLS}#x-mcp-header`, behaviour: '`x-mcp-header` on a `number` property is refused at registration' },
  { id: 'MUST-127', url: `${TOOLS}#x-mcp-header`, behaviour: '`x-mcp-header` under `items`/`anyOf` (not a pure properties chain) is refused at registration' },
  { id: 'MUST-135', url: `${HTTP}#value-encoding`, behaviour: 'a Base64-sentinel `Mcp-Name` is decoded before comparing with the body', transports: ['http'] },
  { id: 'MUST-139', url: `${HTTP}#server-validation`, behaviour: 'a recognized `Mcp-Param-*` header with invalid characters is rejected', transports: ['http'] },
  { id: 'MUST-140', url: `${HTTP}#server-validation`, behaviour: 'decoded `Mcp-Param-*` values must equal the body values', transports: ['http'] },
  { id: 'MUST-141', url: `${HTTP}#server-validation`, behaviour: 'header validation failures are 400 + -32020', transports: ['http'] },
  { id: 'MUST-144', url: `${HTTP}#server-validation`, behaviour: 'a value present in the body with its header missing is rejected', transports: ['http'] },
  { id: 'MUST-146', url: `${HTTP}#server-validation`, behaviour: 'any mirrored header/body mismatch (Mcp-Method, Mcp-Name) is rejected', transports: ['http'] },
  { id: 'MUST-147', url: `${HTTP}#server-validation`, behaviour: 'header-validation rejection is 400 with JSON-RPC -32020', transports: ['http'] },
  // server features
  { id: 'MUST-235', url: `${TOOLS}#capabilities`, behaviour: 'a server with tools declares `tools`' },
  { id: 'MUST-236', url: `${TOOLS}#listing-tools`, behaviour: '`tools/list` (all pages) returns exactly the tools currently available, in a deterministic order' },
  { id: 'MUST-237', url: `${TOOLS}#listing-tools`, behaviour: 'the tool list does not vary per connection or by side effects of other requests' },
  { id: 'MUST-238', url: `${TOOLS}#tool`, behaviour: 'every listed `inputSchema` is an object schema with root `type: "object"`; others are refused' },
  { id: 'MUST-240', url: `${TOOLS}#output-schema`, behaviour: 'structured results that break the output schema are never sent as results' },
  { id: 'MUST-241', url: `${TOOLS}#security-considerations`, behaviour: 'tool inputs are validated: a violation is an `isError` result naming the field' },
  { id: 'MUST-244', url: `${TOOLS}#security-considerations`, behaviour: 'a handler crash is a generic -32603: no stack, path or secret leaks' },
  { id: 'MUST-245', url: `${RES}#capabilities`, behaviour: 'a server with resources declares `resources`' },
  { id: 'MUST-246', url: `${RES}#listing-resources`, behaviour: '`resources/list` returns the currently available resources' },
  { id: 'MUST-247', url: `${RES}#listing-resources`, behaviour: 'the resource list does not vary per connection' },
  { id: 'MUST-249', url: `${RES}#error-handling`, behaviour: 'a nonexistent resource gives -32602 (with `data.uri`)' },
  { id: 'MUST-250', url: `${RES}#error-handling`, behaviour: 'a nonexistent resource never gets an empty `contents`' },
  { id: 'MUST-251', url: `${RES}#security-considerations`, behaviour: 'resource URIs are validated (non-string uri gives -32602 naming `params.uri`)' },
  { id: 'MUST-252', url: `${RES}#binary-content`, behaviour: 'binary resource data is a base64 `blob`' },
  { id: 'MUST-254', url: `${PROMPTS}#capabilities`, behaviour: 'a server with prompts declares `prompts`' },
  { id: 'MUST-255', url: `${PROMPTS}#listing-prompts`, behaviour: '`prompts/list` returns the currently available prompts' },
  { id: 'MUST-256', url: `${PROMPTS}#listing-prompts`, behaviour: 'the prompt list does not vary per connection' },
  { id: 'MUST-261', url: CACHE, behaviour: '`ttlMs` + `cacheScope` on the six cacheable complete results' },
  { id: 'MUST-264', url: CACHE, behaviour: '`ttlMs` is an integer >= 0' },
  { id: 'MUST-267', url: CACHE, behaviour: 'every page of one list has the same `cacheScope`' },
  { id: 'MUST-270', url: `${COMP}#capabilities`, behaviour: 'a server offering completions declares `completions`' },
  { id: 'MUST-271', url: `${COMP}#security-considerations`, behaviour: 'completion inputs are validated (unknown ref -32602, at most 100 values)' },
  { id: 'MUST-272', url: `${LOG}#capabilities`, behaviour: 'a server emitting log notifications declares `logging`' },
  { id: 'MUST-273', url: `${LOG}#log-level`, behaviour: 'no `notifications/message` for a request without `_meta` logLevel; at or above the level when set' },
  { id: 'MUST-274', url: `${LOG}#log-level`, behaviour: 'log notifications only on the request own response stream, never on a listen stream' },
  { id: 'MUST-329', url: SUB, behaviour: 'server teardown ends a listen stream with a `resultType: "complete"` result carrying `_meta.subscriptionId`' },
  { id: 'MUST-330', url: `${HTTP}#sending-messages-to-the-server`, behaviour: '-32020/-32021/-32022 errors on HTTP are all status 400', transports: ['http'] },
] as const satisfies readonly Requirement[];

/** A requirement id of this suite. */
export type RequirementId = (typeof requirements)[number]['id'];
