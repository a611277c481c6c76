/**
 * The `everything` tools that ask the client something through the handler context:
 * sampling, the elicitation forms (plain, SEP-1034 defaults, SEP-1330 enums), a tool that
 * needs an undeclared capability, and an elicitation that streams progress first.
 *
 * Each handler is written once. On 2026-07-28 the server turns a question into an
 * `InputRequiredResult` and runs the handler again, from the top, when the client retries
 * with the answer; on the stateful revisions the question is a real request to the client.
 * So the handlers are deterministic up to their questions and keep no state of their own.
 *
 * @module
 */
import type { McpServer } from '../../server/mcpServer.js';
import { DEFAULTS_FORM, ENUMS_FORM, USER_FORM, describeElicitation, sampledText } from './fixtures.js';

const NO_ARGS = { type: 'object', properties: {} } as const;

/** Registers the sampling and elicitation tools of the legacy scenarios (usable on every revision). */
export function registerInputTools(server: McpServer): void {
  server.tool(
    'test_sampling',
    {
      description: 'Tests server-initiated sampling (LLM completion request)',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
    },
    async (args, context) => {
      const result = await context.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: String(args['prompt']) } }], maxTokens: 100 },
        { key: 'sampling' },
      );
      return `LLM response: ${sampledText(result)}`;
    },
  );
  server.tool(
    'test_elicitation',
    {
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
    },
    async (args, context) => {
      const result = await context.elicit({ message: String(args['message']), requestedSchema: USER_FORM }, { key: 'user_input' });
      return `User response: ${describeElicitation(result)}`;
    },
  );
  server.tool(
    'test_elicitation_sep1034_defaults',
    { description: 'Tests elicitation with default values per SEP-1034', inputSchema: NO_ARGS },
    async (_args, context) => {
      const result = await context.elicit(
        { message: 'Please review and update the form fields with defaults', requestedSchema: DEFAULTS_FORM },
        { key: 'defaults_form' },
      );
      return `Elicitation completed: ${describeElicitation(result)}`;
    },
  );
  server.tool(
    'test_elicitation_sep1330_enums',
    { description: 'Tests elicitation with enum schema improvements per SEP-1330', inputSchema: NO_ARGS },
    async (_args, context) => {
      const result = await context.elicit({ message: 'Please select options from the enum fields', requestedSchema: ENUMS_FORM }, { key: 'enums_form' });
      return `Elicitation completed: ${describeElicitation(result)}`;
    },
  );
  server.tool(
    'test_missing_capability',
    {
      description: 'Needs the client sampling capability: undeclared, the call fails with -32021 (MissingRequiredClientCapability)',
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      const result = await context.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Reply with one word.' } }], maxTokens: 10 },
        { key: 'capability_probe' },
      );
      return `Success: ${sampledText(result)}`;
    },
  );
  server.tool(
    'test_streaming_elicitation',
    { description: 'Reports progress, then asks the user to confirm (needs the elicitation capability)', inputSchema: NO_ARGS },
    async (_args, context) => {
      await context.progress(50, 100, 'Preparing the question');
      const result = await context.elicit(
        { message: 'Continue streaming?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
        { key: 'continue' },
      );
      await context.progress(100, 100, 'Answered');
      return `Streaming complete: ${describeElicitation(result)}`;
    },
  );
}
