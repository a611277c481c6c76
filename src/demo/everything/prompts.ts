/**
 * The prompts of the `everything` server: a plain prompt, one with (completable) arguments,
 * one embedding a resource, one with an image, one that asks the user for context first
 * (an `InputRequiredResult` on `prompts/get`, 2026-07-28), and a dynamic prompt that
 * `test_trigger_prompt_change` adds and removes.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/server/prompts
 * @module
 */
import type { McpServer } from '../../server/mcpServer.js';
import type { RegisteredHandle } from '../../server/types.js';
import { PNG_BASE64, formField, stringForm } from './fixtures.js';

/** The prompt that `test_trigger_prompt_change` adds and removes. */
export const DYNAMIC_PROMPT = 'test_dynamic_prompt';

/** Values the completion of `test_prompt_with_arguments` offers, per argument. */
export const ARGUMENT_SUGGESTIONS: Readonly<Record<'arg1' | 'arg2', readonly string[]>> = {
  arg1: ['paris', 'park', 'party', 'test', 'testing'],
  arg2: ['hello', 'help', 'world'],
};

function suggest(values: readonly string[]): (value: string) => readonly string[] {
  return (value) => values.filter((v) => v.startsWith(value.toLowerCase()));
}

/** Controls of the dynamic prompt. */
export interface DynamicPrompt {
  /** Adds the prompt when absent, removes it when present; returns whether it is now present. */
  toggle(): boolean;
}

/** Registers the prompts; returns the control of the dynamic one. */
export function registerPrompts(server: McpServer): DynamicPrompt {
  server.prompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  server.prompt(
    'test_prompt_with_arguments',
    {
      title: 'Prompt With Arguments',
      description: 'A prompt with required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true, complete: suggest(ARGUMENT_SUGGESTIONS.arg1) },
        { name: 'arg2', description: 'Second test argument', required: true, complete: suggest(ARGUMENT_SUGGESTIONS.arg2) },
      ],
    },
    (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args['arg1'] ?? ''}', arg2='${args['arg2'] ?? ''}'` } }],
    }),
  );
  server.prompt(
    'test_prompt_with_embedded_resource',
    {
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that includes an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    (args) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: args['resourceUri'] ?? '', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );
  server.prompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
  server.prompt(
    'test_input_required_result_prompt',
    { title: 'Prompt Needing Context', description: 'MRTR: asks the user for context (input key user_context) before rendering' },
    async (_args, context) => {
      const answer = await context.elicit(
        { message: 'What context should the prompt use?', requestedSchema: stringForm('context') },
        { key: 'user_context' },
      );
      return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with context: ${formField(answer, 'context')}` } }] };
    },
  );

  let dynamic: RegisteredHandle | undefined;
  return {
    toggle: () => {
      if (dynamic !== undefined) {
        dynamic.remove();
        dynamic = undefined;
        return false;
      }
      dynamic = server.prompt(DYNAMIC_PROMPT, { description: 'Appears and disappears with test_trigger_prompt_change' }, () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'This prompt was added at run time.' } }],
      }));
      return true;
    },
  };
}
