/**
 * The gateway as a library: `openGateway(config, deps)` runs the same gateway as
 * `switchboard gateway` (the same chain, in the same order), here on a config written in code,
 * with the demo server behind it, a policy rule that hides one tool from one caller, and an
 * audit log kept in memory. Its front door is served on a free loopback port; a client with the
 * bearer token `alice-…` lists and calls tools through it. Run with
 * `npx tsx examples/gateway-embedded.ts` after `npm run build`.
 */
import { McpClient } from 'switchboard/client';
import { StreamableHttpClientTransport } from 'switchboard/transport/http';
import { listen } from 'switchboard/adapters/node';
import { defaultTransportFactory } from 'switchboard/adapters/node-host';
import { auditSubject, openGateway, parseConfig } from 'switchboard/host';
import { SqliteAuditLog } from 'switchboard/store';
import { silentLogger } from 'switchboard/util';

const demo = new URL('../dist/cli/main.js', import.meta.url).pathname;
const token = `alice-${crypto.randomUUID()}`;
const config = parseConfig(
  JSON.stringify({
    mcpServers: { demo: { command: process.execPath, args: [demo, 'everything', '--stdio', '--log-level', 'warn'] } },
    switchboard: {
      stateDir: '.tmp/gateway-embedded',
      gateway: { auth: { tokens: [{ name: 'alice', token }] } },
      // A rule that denies a tool hides it from the caller's tools/list and refuses its call.
      policy: { rules: [{ id: 'no-audio-for-alice', when: "principal.id == 'alice' && tool.name == 'test_audio_content'", outcome: 'deny' }] },
    },
  }),
  { file: 'embedded.json', env: process.env },
);

const audit = SqliteAuditLog.open(':memory:');
const gateway = await openGateway(config, {
  logger: silentLogger,
  transport: defaultTransportFactory({ environment: process.env }),
  // The embedder decides which launches may start: here, the one it wrote.
  admit: async (c) => c.servers,
  audit,
});
// The named tokens, as the config holds them (digests: the clear token is not kept).
const tokens = config.gateway.auth.kind === 'none' ? [] : (config.gateway.auth.tokens ?? []);
const server = await listen(gateway.frontDoor({ path: '/mcp', logger: silentLogger, auth: { tokens } }), { port: 0 });

const client = new McpClient({ name: 'embedded-example', version: '1.0.0' });
await client.connect(new StreamableHttpClientTransport({ url: new URL('/mcp', server.url), headers: { authorization: `Bearer ${token}` } }));
const tools = await client.listTools();
const hidden = !tools.some((t) => t.name === 'test_audio_content');
console.log(`alice sees ${tools.length} tools; test_audio_content is ${hidden ? 'hidden' : 'listed'}`);
const echoed = await client.callTool('echo', { message: 'through the chain' });
console.log('echo:', JSON.stringify(echoed.content));
const refused = await client.callTool('test_audio_content', {});
console.log('test_audio_content:', JSON.stringify(refused.content));

await client.close();
await server.close();
await gateway.close();
// Every request of the session left one record, with its principal.
for (const r of await audit.read()) console.log(`audit #${r.seq}: ${auditSubject(r)} (${r.outcome})`);
await audit.close();
if (!hidden || refused.isError !== true) throw new Error('the rule did not apply');
