/**
 * The `test_input_required_result_*` tools (SEP-2322, multi round-trip requests).
 *
 * They ask through the handler context with the input keys the conformance scenarios name
 * (`user_name`, `capital_question`, `client_roots`, `confirm`, `step1`/`step2`, ...). The
 * server seals every `requestState` (authenticated encryption, bound to the request), replays
 * earlier answers on each retry and rejects tampered or replayed states, so the handlers only
 * say what they need. Written once, they also run on the stateful revisions, where each
 * question becomes a real request to the client.
 *
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @module
 */
import { isStateless } from '../../protocol/revisions.js';
import type { InputRequest } from '../../protocol/model/mrtr.js';
import type { ListRootsResult } from '../../protocol/model/utilities.js';
import type { McpServer } from '../../server/mcpServer.js';
import { ToolError } from '../../server/tools.js';
import type { HandlerContext } from '../../server/types.js';
import { CONFIRM_FORM, formField, sampledText, stringForm } from './fixtures.js';
import type { CreateMessageResult } from '../../protocol/model/sampling.js';
import type { ElicitResult } from '../../protocol/model/elicitation.js';

const NO_ARGS = { type: 'object', properties: {} } as const;

/** The state `test_input_required_result_request_state` carries between rounds. */
interface RequestStateData {
  readonly kind: 'request-state';
}

function isRequestStateData(value: unknown): value is RequestStateData {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'request-state';
}

function rootCount(result: ListRootsResult): number {
  return result.roots.length;
}

async function confirm(context: HandlerContext): Promise<boolean> {
  const answer = await context.elicit({ message: 'Please confirm', requestedSchema: CONFIRM_FORM }, { key: 'confirm' });
  return answer.action === 'accept' && answer.content?.['ok'] === true;
}

/** Single-question tools: elicitation, sampling, roots. */
function registerSingleInputTools(server: McpServer): void {
  server.tool(
    'test_input_required_result_elicitation',
    { description: 'MRTR: asks the user for their name (input key user_name), then greets them', inputSchema: NO_ARGS },
    async (_args, context) => {
      const answer = await context.elicit({ message: 'What is your name?', requestedSchema: stringForm('name') }, { key: 'user_name' });
      return `Hello, ${formField(answer, 'name')}!`;
    },
  );
  server.tool(
    'test_input_required_result_sampling',
    { description: 'MRTR: asks the client model a question (input key capital_question)', inputSchema: NO_ARGS },
    async (_args, context) => {
      const answer = await context.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
        { key: 'capital_question' },
      );
      return `Sampling result: ${sampledText(answer)}`;
    },
  );
  server.tool(
    'test_input_required_result_list_roots',
    { description: 'MRTR: asks the client for its roots (input key client_roots)', inputSchema: NO_ARGS },
    async (_args, context) => {
      const roots = await context.listRoots({ key: 'client_roots' });
      return `Found ${rootCount(roots)} root(s)${roots.roots.length > 0 ? `: ${roots.roots.map((r) => r.uri).join(', ')}` : ''}`;
    },
  );
}

/** Tools about `requestState`: carried data, tamper detection. */
function registerStateTools(server: McpServer): void {
  server.tool(
    'test_input_required_result_request_state',
    { description: 'MRTR: carries data in a single-use requestState and checks it on the retry (input key confirm)', inputSchema: NO_ARGS },
    async (_args, context) => {
      if (context.state === undefined) {
        context.setState({ kind: 'request-state' } satisfies RequestStateData);
        context.singleUseState();
      }
      const ok = await confirm(context);
      // On 2026-07-28 the answer must come with the sealed state of round 1 (round > 1). On the
      // stateful revisions the question was a real request answered inline: no state travels.
      if (!isRequestStateData(context.state) || (isStateless(context.protocolVersion) && context.round === 1)) {
        throw new ToolError('requestState missing: call the tool without inputResponses first, then retry with the requestState it returns');
      }
      return ok ? 'state-ok: requestState validated' : 'state-ok: requestState validated; not confirmed';
    },
  );
  server.tool(
    'test_input_required_result_tampered_state',
    { description: 'MRTR: returns an integrity-protected requestState; a modified one is rejected with -32602', inputSchema: NO_ARGS },
    async (_args, context) => {
      const ok = await confirm(context);
      return ok ? 'integrity-ok: state verified' : 'integrity-ok: state verified; not confirmed';
    },
  );
}

/** Tools that ask several things: in one round, over several rounds, by capability. */
function registerCompositeTools(server: McpServer): void {
  server.tool(
    'test_input_required_result_multiple_inputs',
    { description: 'MRTR: asks for a name, a sampled greeting and the roots in one round', inputSchema: NO_ARGS },
    async (_args, context) => {
      const answers = await context.input({
        user_name: { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: stringForm('name') } },
        greeting: {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
        },
        client_roots: { method: 'roots/list', params: {} },
      });
      const name = formField(answers.user_name as ElicitResult, 'name');
      const greeting = sampledText(answers.greeting as CreateMessageResult, 'Hello there!');
      return `Name: ${name}; Greeting: ${greeting}; Roots: ${rootCount(answers.client_roots as ListRootsResult)}`;
    },
  );
  server.tool(
    'test_input_required_result_multi_round',
    { description: 'MRTR: asks for a name (step1), then for a favourite colour (step2), in two rounds', inputSchema: NO_ARGS },
    async (_args, context) => {
      const step1 = await context.elicit({ message: 'Step 1: What is your name?', requestedSchema: stringForm('name') }, { key: 'step1' });
      const name = formField(step1, 'name', 'friend');
      const step2 = await context.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: stringForm('color') }, { key: 'step2' });
      return `Multi-round complete for ${name} who likes ${formField(step2, 'color')}`;
    },
  );
  server.tool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: asks only for what the client declared (elicitation and/or sampling)', inputSchema: NO_ARGS },
    async (_args, context) => {
      const requests: Record<string, InputRequest> = {};
      if (context.clientCapabilities.elicitation !== undefined) {
        requests['elicit_input'] = { method: 'elicitation/create', params: { message: 'Elicitation input', requestedSchema: stringForm('value') } };
      }
      if (context.clientCapabilities.sampling !== undefined) {
        requests['sample_input'] = {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }], maxTokens: 50 },
        };
      }
      const keys = Object.keys(requests);
      if (keys.length === 0) return 'No supported capabilities declared';
      await context.input(requests);
      return `capabilities-ok: received ${keys.join(',')}`;
    },
  );
}

/** Registers every `test_input_required_result_*` tool. */
export function registerMrtrTools(server: McpServer): void {
  registerSingleInputTools(server);
  registerStateTools(server);
  registerCompositeTools(server);
}
