/**
 * Prompts: the registration record and its wire form for `prompts/list`.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/prompts
 * @module
 */
import type { ForwardedCompleter, ForwardedHandler } from './types.js';
import type { PromptDefinition, PromptHandler } from './types.js';

/** A registered prompt. */
export interface PromptEntry {
  readonly key: string;
  readonly wire: Readonly<Record<string, unknown>>;
  readonly definition: PromptDefinition;
  readonly handler: PromptHandler;
  disabled: boolean;
  /** Set for a forwarded prompt (`forwardPrompt`). */
  readonly forward?: ForwardedHandler<Record<string, unknown>>;
  /** `completion/complete` of a forwarded prompt. */
  readonly forwardComplete?: ForwardedCompleter;
}

/** Builds the record of a prompt (its wire form drops the argument completers). */
export function makePrompt(name: string, definition: PromptDefinition, handler: PromptHandler): PromptEntry {
  const wire: Record<string, unknown> = { name };
  if (definition.title !== undefined) wire['title'] = definition.title;
  if (definition.description !== undefined) wire['description'] = definition.description;
  if (definition.arguments !== undefined) {
    wire['arguments'] = definition.arguments.map(({ complete: _c, ...arg }) => ({ ...arg }));
  }
  if (definition.icons !== undefined) wire['icons'] = [...definition.icons];
  if (definition._meta !== undefined) wire['_meta'] = { ...definition._meta };
  return { key: name, wire: Object.freeze(wire), definition, handler, disabled: false };
}
