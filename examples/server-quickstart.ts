/**
 * Writing a server: one tool (JSON Schema and zod), one resource, one prompt, served over
 * Streamable HTTP on 127.0.0.1. Run with `npx tsx examples/server-quickstart.ts`; it starts the
 * server, calls it once over HTTP like a client would, prints the answers and exits (pass
 * `--serve` to keep it running).
 */
import { z } from 'zod';
import { listen } from 'switchboard/adapters/node';
import { McpServer, ToolError } from 'switchboard/server';
import { createStreamableHttpHandler } from 'switchboard/transport/http';

const server = new McpServer({ name: 'weather', version: '1.0.0', instructions: 'Forecasts for European capitals.' });

// A tool with a JSON Schema input: arguments are validated before the handler runs.
server.tool(
  'forecast',
  {
    title: 'Weather forecast',
    description: 'The forecast for a city, for up to 7 days.',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { city: { type: 'string' }, highs: { type: 'array', items: { type: 'number' } } }, required: ['city', 'highs'] },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async (args, ctx) => {
    const city = String(args['city']);
    const days = typeof args['days'] === 'number' ? args['days'] : 3;
    if (city.toLowerCase() === 'atlantis') throw new ToolError(`No forecast for ${city}: unknown city`);
    await ctx.progress(1, 2, 'looking up');
    const highs = Array.from({ length: days }, (_, i) => 18 + ((city.length + i) % 5));
    return { structuredContent: { city, highs } }; // a text block mirroring it is added for older clients
  },
);

// A tool whose input is a zod schema (any Standard Schema with a JSON Schema form works).
server.tool('convert', { description: 'Celsius to Fahrenheit.', inputSchema: z.object({ celsius: z.number() }) }, ({ celsius }) =>
  `${((celsius * 9) / 5 + 32).toFixed(1)} °F`,
);

// A tool that asks the user: on 2026-07-28 this is a multi round-trip request, on older
// revisions a real elicitation request; the handler is the same.
server.tool('subscribe', { description: 'Subscribe to daily forecasts.' }, async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: 'Which email address should receive the forecast?',
    requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
  });
  return answer.action === 'accept' ? `Subscribed ${String(answer.content?.['email'])}` : 'Not subscribed';
});

server.resource('weather://stations', { name: 'stations', mimeType: 'application/json' }, () => [
  { text: JSON.stringify(['Paris', 'Berlin', 'Madrid']), mimeType: 'application/json' },
]);

server.prompt('plan-trip', { description: 'Plan a trip around the weather.', arguments: [{ name: 'city', required: true }] }, ({ city }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Plan three days in ${city ?? '?'} around the forecast.` } }],
}));

const handler = createStreamableHttpHandler(server, { path: '/mcp' });
const running = await listen(handler, { port: process.argv.includes('--serve') ? 3000 : 0 });
const url = new URL('/mcp', running.url).href;
console.log(`serving ${url}`);

if (!process.argv.includes('--serve')) {
  // What a 2026-07-28 client sends: per-request _meta and the MCP headers.
  const call = async (method: string, params: Record<string, unknown>, name?: string) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } },
      }),
    });
    return (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  };
  const tools = await call('tools/list', {});
  console.log('tools:', (tools.result?.['tools'] as { name: string }[]).map((t) => t.name).join(', '));
  const forecast = await call('tools/call', { name: 'forecast', arguments: { city: 'Paris', days: 2 } }, 'forecast');
  console.log('forecast:', JSON.stringify(forecast.result?.['structuredContent']));
  const converted = await call('tools/call', { name: 'convert', arguments: { celsius: 21 } }, 'convert');
  console.log('convert:', JSON.stringify(converted.result?.['content']));
  const asked = await call('tools/call', { name: 'subscribe', arguments: {} }, 'subscribe');
  console.log('subscribe asks first:', asked.result?.['resultType'], Object.keys(asked.result?.['inputRequests'] as object).join(', '));
  await running.close();
}
