/**
 * The entries of the host's registry as it exposes them: each server's definition exactly as
 * the server sent it, beside the form with the exposed (namespaced) name or URI. A leaf module
 * (protocol types only), so the chain's per-method types can name what a list resolves with.
 *
 * @module
 */
import type { Prompt } from '../protocol/model/prompts.js';
import type { Resource, ResourceTemplate } from '../protocol/model/resource.js';
import type { Tool } from '../protocol/model/tool.js';

/** A tool as the host exposes it. */
export interface ExposedTool {
  /** The exposed (namespaced) name. */
  readonly name: string;
  readonly serverId: string;
  /** The definition exactly as the server sent it. */
  readonly definition: Tool;
  /** The definition with the exposed name. */
  readonly tool: Tool;
}

/** A prompt as the host exposes it. */
export interface ExposedPrompt {
  readonly name: string;
  readonly serverId: string;
  readonly definition: Prompt;
  readonly prompt: Prompt;
}

/** A resource as the host exposes it. */
export interface ExposedResource {
  /** The exposed URI (rewritten `<serverId>+<uri>` only where two servers share it). */
  readonly uri: string;
  readonly serverId: string;
  readonly definition: Resource;
  readonly resource: Resource;
}

/** A resource template as the host exposes it. */
export interface ExposedTemplate {
  readonly uriTemplate: string;
  readonly serverId: string;
  readonly definition: ResourceTemplate;
  readonly template: ResourceTemplate;
}
