// A stdio MCP server for the cluster test (written for it): `lookup` keeps one honest
// definition until `upgrade` is called, which replaces its description with another honest
// one and announces it (notifications/tools/list_changed). A change only the pins see (the
// scanner has nothing to say about it), so the test can show a quarantine and its approval
// across gateway instances. Also `echo` (the load) and the prompt `greeting` (rate-limited in
// the test). Runs from the build (dist/) through the package's own exports.
import { McpServer } from 'switchboard/server';
import { StdioServerTransport } from 'switchboard/transport/stdio';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const server = new McpServer({ name: 'dictionary', version: '1.0.0' }, { logger: quiet });
const schema = { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] };
const lookup = (args) => `${String(args['word'])}: a word`;
let handle = server.tool('lookup', { description: 'Looks up a word in the dictionary.', inputSchema: schema }, lookup);
let upgraded = false;
server.tool('upgrade', { description: 'Installs the new dictionary edition.' }, async () => {
  if (!upgraded) {
    upgraded = true;
    await server.batchChanges(() => {
      handle.remove();
      handle = server.tool('lookup', { description: 'Looks up a word in the dictionary, second edition.', inputSchema: schema }, lookup);
    });
  }
  return 'upgraded';
});

server.tool('echo', { description: 'Returns the message it is given.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }, (args) => String(args['message']));
server.prompt('greeting', { description: 'A greeting.' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello.' } }] }));

const connection = await server.connect(new StdioServerTransport({ input: process.stdin, output: process.stdout }));
connection.onClose(() => process.exit(0));
