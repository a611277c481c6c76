/**
 * The model-visible text of a result, for rewriting: {@link mapResultText} applies a function
 * to every text a `tools/call`, `prompts/get` or `resources/read` result carries (text content,
 * embedded resource text, resource link titles and descriptions, every string of structured
 * content, prompt descriptions and message content, resource contents), copying only what
 * changes. Object keys of structured content are read, not rewritten; a `blob` that decodes to
 * text is read, not rewritten; a resource link's name, title and description are text; image and
 * audio `data`, URIs and `_meta` are left alone.
 * The same walk covers what else a server sends that reaches a person or the model: the text of
 * its sampling and elicitation requests ({@link mapServerRequestText}), of its tasks
 * ({@link mapTaskText}) and of its progress and log notifications ({@link mapNotificationText}).
 *
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/prompts#getting-a-prompt
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/resources#reading-resources
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/sampling
 * @see https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress
 * @see https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
 * @module
 */
import { textOfBase64 } from '../scanner/rules/encoded.js';

/**
 * Rewrites one text; returns it unchanged (the same string) when there is nothing to do. With
 * a `kind` the text is only read, never rewritten (the return is ignored): an object `key` of
 * structured content or a request schema, the decoded text of a `blob`, or (`unread`) a note
 * that part of the value was not read (nested deeper than {@link MAX_RESULT_DEPTH}, or a blob
 * larger than {@link MAX_BLOB_CHARS}), which the sanitiser counts as a marker.
 */
export type TextMap = (text: string, kind?: 'key' | 'blob' | 'unread') => string;

/** Structured content deeper than this is not read (reported as `unread`). */
export const MAX_RESULT_DEPTH = 64;
/** Base64 blobs longer than this are not decoded (reported as `unread`). */
export const MAX_BLOB_CHARS = 8 * 1024 * 1024;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `obj` with `key` replaced when `fn` changed it (copy on write). */
function field(obj: Obj, key: string, fn: (v: unknown) => unknown): Obj {
  if (!(key in obj)) return obj;
  const before = obj[key];
  const after = fn(before);
  return after === before ? obj : { ...obj, [key]: after };
}

function text(fn: TextMap): (v: unknown) => unknown {
  return (v) => (typeof v === 'string' ? fn(v) : v);
}

function array(each: (v: unknown) => unknown): (v: unknown) => unknown {
  return (v) => {
    if (!Array.isArray(v)) return v;
    let out: unknown[] | undefined;
    v.forEach((item: unknown, i) => {
      const next = each(item);
      if (next !== item) (out ??= [...v])[i] = next;
    });
    return out ?? v;
  };
}

/** Every string of a JSON value, for structured content: values rewritten, keys read (kept as they are). */
function deep(fn: TextMap, depth = 0): (v: unknown) => unknown {
  return (v) => {
    if (typeof v === 'string') return fn(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth > MAX_RESULT_DEPTH) {
      fn(`nested deeper than ${MAX_RESULT_DEPTH} levels`, 'unread');
      return v;
    }
    if (Array.isArray(v)) return array(deep(fn, depth + 1))(v);
    let out: Obj = v as Obj;
    for (const key of Object.keys(v)) {
      fn(key, 'key');
      out = field(out, key, deep(fn, depth + 1));
    }
    return out;
  };
}

/** The text a base64 blob holds, read (never rewritten): binary blobs are not text and give nothing. */
function readBlob(fn: TextMap, blob: unknown): void {
  if (typeof blob !== 'string' || blob === '') return;
  if (blob.length > MAX_BLOB_CHARS) {
    fn(`a blob of ${blob.length} base64 characters`, 'unread');
    return;
  }
  const decoded = textOfBase64(blob);
  if (decoded !== undefined) fn(decoded, 'blob');
}

/** Embedded resource contents and `resources/read` contents: their `text`, and the text a `blob` decodes to. */
function contents(fn: TextMap): (v: unknown) => unknown {
  return (v) => {
    if (!isObj(v)) return v;
    readBlob(fn, v['blob']);
    return field(v, 'text', text(fn));
  };
}

/** One content block. */
function block(fn: TextMap): (v: unknown) => unknown {
  return (v) => {
    if (!isObj(v)) return v;
    switch (v['type']) {
      case 'text':
        return field(v, 'text', text(fn));
      case 'resource':
        return field(v, 'resource', contents(fn));
      case 'resource_link':
        return field(field(field(v, 'name', text(fn)), 'title', text(fn)), 'description', text(fn));
      // Sampling with tools (a server's request): a tool's call input and its result.
      case 'tool_use':
        return field(v, 'input', deep(fn));
      case 'tool_result':
        return field(field(v, 'content', array(block(fn))), 'structuredContent', deep(fn));
      default:
        return v;
    }
  };
}

/**
 * `result` with `fn` applied to every model-visible text (see the module comment); `result`
 * itself when nothing changed.
 */
export function mapResultText<T>(result: T, fn: TextMap): T {
  if (!isObj(result)) return result;
  let out: Obj = result;
  out = field(out, 'content', array(block(fn)));
  out = field(out, 'structuredContent', deep(fn));
  out = field(out, 'contents', array(contents(fn)));
  out = field(out, 'description', text(fn));
  out = field(out, 'messages', messages(fn));
  return out as T;
}

/** Sampling messages: each message's `content` (one block or a list). */
function messages(fn: TextMap): (v: unknown) => unknown {
  return array((m) => (isObj(m) ? field(m, 'content', (c) => (Array.isArray(c) ? array(block(fn))(c) : block(fn)(c))) : m));
}

/**
 * The text of a downstream server's request to the client that reaches a person or the model:
 * an elicitation's `message` (and every string and key of its schema), a sampling request's
 * `messages` (tool use and tool result blocks included), `systemPrompt` and `tools`. Copy on
 * write, as {@link mapResultText}.
 */
export function mapServerRequestText<T>(params: T, fn: TextMap): T {
  if (!isObj(params)) return params;
  let out: Obj = params;
  out = field(out, 'message', text(fn));
  out = field(out, 'requestedSchema', deep(fn));
  out = field(out, 'messages', messages(fn));
  out = field(out, 'systemPrompt', text(fn));
  // Sampling with tools: the tools offered to the model (names, descriptions, schemas: every string and key).
  out = field(out, 'tools', deep(fn));
  return out as T;
}

/**
 * The text of a JSON-RPC error a server answered with: its `message` (rewritten) and every
 * string and key of its `data` (as structured content). Copy on write, as {@link mapResultText}.
 */
export function mapErrorText<T>(error: T, fn: TextMap): T {
  if (!isObj(error)) return error;
  return field(field(error, 'message', text(fn)), 'data', deep(fn)) as T;
}

/**
 * The text of a task (a `tasks/get` result or a `notifications/tasks` params): its
 * `statusMessage`, its `result` (a tool result) and the server's `inputRequests`.
 */
export function mapTaskText<T>(task: T, fn: TextMap): T {
  if (!isObj(task)) return task;
  let out: Obj = task;
  out = field(out, 'statusMessage', text(fn));
  out = field(out, 'result', (r) => mapResultText(r, fn));
  out = field(out, 'inputRequests', (requests) => {
    if (!isObj(requests)) return requests;
    let all: Obj = requests;
    for (const key of Object.keys(requests)) all = field(all, key, (r) => (isObj(r) ? field(r, 'params', (p) => mapServerRequestText(p, fn)) : r));
    return all;
  });
  return out as T;
}

/** The text of a progress notification (`message`) or a log message (every string of `data`). */
export function mapNotificationText<T>(method: 'notifications/progress' | 'notifications/message' | 'notifications/tasks', params: T, fn: TextMap): T {
  if (!isObj(params)) return params;
  if (method === 'notifications/tasks') return mapTaskText(params, fn);
  return (method === 'notifications/progress' ? field(params, 'message', text(fn)) : field(params, 'data', deep(fn))) as T;
}

