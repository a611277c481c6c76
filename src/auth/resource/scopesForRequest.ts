/**
 * Declarative scope requirements per MCP request.
 *
 * A {@link ScopePolicy} maps JSON-RPC methods (and, for `tools/call`, `prompts/get` and
 * `resources/read`, the tool name, prompt name or resource URI) to the scopes they need.
 * {@link scopesForRequest} returns **all** scopes the request needs, so a server can emit them in
 * a single `insufficient_scope` challenge, as the spec recommends
 * ({@link https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization#scope-challenge-handling | scope challenge handling}).
 * Hierarchies (`implies`) are honoured by {@link isAuthorizedFor}.
 *
 * @module
 */

import { type ScopeImplies, missingScopes, unionScopes } from '../scopes.js';

/** Scope requirements of an MCP server. */
export interface ScopePolicy {
  /** Method → scopes (e.g. `{ 'tools/list': ['mcp:read'] }`). */
  readonly methods?: Readonly<Record<string, readonly string[]>>;
  /** Tool name → scopes, added to the `tools/call` method scopes. */
  readonly tools?: Readonly<Record<string, readonly string[]>>;
  /** Prompt name → scopes, added to the `prompts/get` method scopes. */
  readonly prompts?: Readonly<Record<string, readonly string[]>>;
  /** Resource URI → scopes, added to the `resources/read` method scopes. */
  readonly resources?: Readonly<Record<string, readonly string[]>>;
  /** Scopes for methods not listed in `methods` (default: none). */
  readonly default?: readonly string[];
  /** Scopes every request needs. */
  readonly always?: readonly string[];
  /** Scope hierarchy: broad → narrower ones it implies (e.g. `{ 'mcp:admin': ['mcp:write'], 'mcp:write': ['mcp:read'] }`). */
  readonly implies?: ScopeImplies;
}

/** The parts of a JSON-RPC request the policy looks at. */
export interface ScopedRequest {
  readonly method: string;
  readonly params?: unknown;
}

function lookup(map: Readonly<Record<string, readonly string[]>> | undefined, key: unknown): readonly string[] {
  if (map === undefined || typeof key !== 'string' || !Object.hasOwn(map, key)) return [];
  return map[key] ?? [];
}

/** All scopes `request` needs under `policy` (deduplicated, order kept). */
export function scopesForRequest(policy: ScopePolicy, request: ScopedRequest): string[] {
  const params = typeof request.params === 'object' && request.params !== null ? (request.params as Record<string, unknown>) : {};
  const methodScopes = policy.methods !== undefined && Object.hasOwn(policy.methods, request.method) ? lookup(policy.methods, request.method) : (policy.default ?? []);
  let specific: readonly string[] = [];
  if (request.method === 'tools/call') specific = lookup(policy.tools, params['name']);
  else if (request.method === 'prompts/get') specific = lookup(policy.prompts, params['name']);
  else if (request.method === 'resources/read') specific = lookup(policy.resources, params['uri']);
  return unionScopes(policy.always ?? [], methodScopes, specific);
}

/** True when `granted` (expanded through the policy's hierarchy) covers everything `request` needs. */
export function isAuthorizedFor(policy: ScopePolicy, granted: readonly string[], request: ScopedRequest): boolean {
  return missingScopes(granted, scopesForRequest(policy, request), policy.implies ?? {}).length === 0;
}
