/**
 * The `[json-args]` positional of `switchboard call` and `switchboard prompt`: a JSON object
 * given on the command line.
 *
 * @module
 */
import { UsageError } from './args.js';

/** Parses the tool arguments: a JSON object (none given: `{}`). */
export function parseToolArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`[json-args] is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('[json-args] must be a JSON object');
  return value as Record<string, unknown>;
}

/** Prompt arguments from `[json-args]`: an object of strings (numbers and booleans converted). */
export function parsePromptArguments(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseToolArguments(text))) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else throw new UsageError(`prompt argument ${JSON.stringify(key)} must be a string`);
  }
  return out;
}
