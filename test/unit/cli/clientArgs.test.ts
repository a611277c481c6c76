// The client commands' argument handling: shell-like splitting of a stdio command line,
// <server> forms, repeated --header, validation; and result/tool formatting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/args.js';
import { parseClientArgs as clientArgsOf, splitCommandLine, type ClientArgs } from '../../../src/cli/clientConnect.js';
import { parseCommandLine } from '../../../src/cli/command.js';
import { formatToolResult } from '../../../src/cli/commands/call.js';
import { command as toolsCommand, formatToolList, toolSignature } from '../../../src/cli/commands/tools.js';
import { parseToolArguments } from '../../../src/cli/jsonArguments.js';
import type { Tool } from '../../../src/protocol/model/tool.js';

/** What `switchboard tools` reads from `argv`. */
const parseClientArgs = (argv: readonly string[]): ClientArgs => clientArgsOf(parseCommandLine(toolsCommand, argv));

describe('splitCommandLine', () => {
  it('splits on whitespace and honours quotes and escapes, without expansion', () => {
    assert.deepEqual(splitCommandLine('npx -y some-server --flag'), ['npx', '-y', 'some-server', '--flag']);
    assert.deepEqual(splitCommandLine(`node 'my server.js'  "a \\"b\\" $HOME" c\\ d ''`), ['node', 'my server.js', 'a "b" $HOME', 'c d', '']);
    assert.deepEqual(splitCommandLine('a"b"\'c\'d'), ['abcd']);
    assert.deepEqual(splitCommandLine('  \t '), []);
  });

  it('refuses an unterminated quote', () => {
    assert.throws(() => splitCommandLine('node "oops'), UsageError);
    assert.throws(() => splitCommandLine("node 'oops"), UsageError);
  });
});

describe('parseClientArgs', () => {
  it('reads an http(s) URL, repeated headers and the rest', () => {
    const args = parseClientArgs(['--header', 'X-A: 1', '--header=X-B:two:2', 'https://example.com/mcp', 'echo', '{}', '--timeout', '500']);
    assert.deepEqual(args.target, { kind: 'http', url: 'https://example.com/mcp' });
    assert.deepEqual(args.headers, { 'X-A': '1', 'X-B': 'two:2' });
    assert.deepEqual(args.rest, ['echo', '{}']);
    assert.equal(args.options['timeout'], '500');
  });

  it('reads a stdio command line, or the argv after --', () => {
    assert.deepEqual(parseClientArgs(['npx -y "some server" --flag']).target, { kind: 'stdio', command: 'npx', args: ['-y', 'some server', '--flag'] });
    const args = parseClientArgs(['--era', 'stateful', 'echo', '--', 'node', 'server.js', '--header', 'kept']);
    assert.deepEqual(args.target, { kind: 'stdio', command: 'node', args: ['server.js', '--header', 'kept'] });
    assert.deepEqual(args.rest, ['echo']);
    assert.deepEqual(args.headers, {});
  });

  it('refuses bad input with usage errors', () => {
    assert.throws(() => parseClientArgs([]), /missing <server>/);
    assert.throws(() => parseClientArgs(['--', ]), /must be followed/);
    assert.throws(() => parseClientArgs(['--header', 'nocolon', 'http://x/mcp']), /invalid --header/);
    assert.throws(() => parseClientArgs(['--era', 'maybe', 'http://x/mcp']), /invalid --era/);
    assert.throws(() => parseClientArgs(['--timeout', 'soon', 'http://x/mcp']), /invalid --timeout/);
    assert.throws(() => parseClientArgs(['--oauth', 'node server.js']), /--oauth needs/);
    assert.throws(() => parseClientArgs(['--header', 'A:b', 'node server.js']), /--header needs/);
    assert.throws(() => parseClientArgs(['--bogus', 'http://x/mcp']), { name: 'UsageError', message: 'unknown option --bogus for tools' });
  });

  it('a URL without its scheme is a usage error that names the URL it means, not a command to spawn', () => {
    assert.throws(() => parseClientArgs(['127.0.0.1:39101/mcp']), { name: 'UsageError', message: '"127.0.0.1:39101/mcp" has no scheme: write http://127.0.0.1:39101/mcp' });
    assert.throws(() => parseClientArgs(['localhost:3000']), /write http:\/\/localhost:3000$/);
    assert.throws(() => parseClientArgs(['mcp.example.com:443/mcp']), /write https:\/\/mcp\.example\.com:443\/mcp$/);
    assert.equal(parseClientArgs(['node server.js:1']).target.kind, 'stdio');
  });
});

describe('formatting', () => {
  it('one line per tool: name(signature), title, first description line (truncated)', () => {
    const tool = { name: 'echo', title: 'Echo', description: 'Says it back.\nMore.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } } as Tool;
    const bare = { name: 'bare', inputSchema: { type: 'object' } } as Tool;
    assert.deepEqual(formatToolList([tool, bare]), ['echo(message: string)  Echo — Says it back.', 'bare()']);
    const long = { name: 'x', description: 'y'.repeat(150), inputSchema: { type: 'object' } } as Tool;
    assert.equal(formatToolList([long])[0], `x()  ${'y'.repeat(99)}…`);
  });

  it('signatures: optional marks, enums, arrays, unions, integers; long ones are cut', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string', enum: ['x', 'y'] }, c: { type: 'array', items: { type: 'integer' } }, d: { anyOf: [{ type: 'string' }, { type: 'null' }] }, e: { type: 'object' } },
      required: ['a'],
    };
    assert.equal(toolSignature({ name: 't', inputSchema: schema } as Tool), '(a: number, b?: "x" | "y", c?: integer[], d?: string | null, e?: object)');
    const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`argument${i}`, { type: 'string' }])) };
    const cut = toolSignature({ name: 't', inputSchema: many } as Tool);
    assert.ok(cut.length <= 72 && cut.endsWith('…)'), cut);
  });

  it('long names keep the columns aligned: a too-long name takes its own line', () => {
    const short = { name: 'a', description: 'first', inputSchema: { type: 'object' } } as Tool;
    const mid = { name: 'abcdef', description: 'second', inputSchema: { type: 'object' } } as Tool;
    const huge = { name: 'n'.repeat(60), description: 'third', inputSchema: { type: 'object' } } as Tool;
    const lines = formatToolList([short, mid, huge]);
    assert.deepEqual(lines, ['a()       first', 'abcdef()  second', `${'n'.repeat(60)}()`, `${' '.repeat(8)}  third`]);
    const columns = lines.filter((l) => l.includes('  ')).map((l) => l.search(/\S+$/));
    assert.equal(new Set(columns).size, 1);
  });

  it('renders text, binary, resources and structured content', () => {
    const text = formatToolResult({
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'resource', resource: { uri: 'test://r', text: 'body' } },
        { type: 'resource_link', uri: 'test://l', name: 'l' },
      ],
      structuredContent: { n: 1 },
    } as never);
    assert.equal(text, 'hi\n[image image/png, 3 bytes]\n[resource test://r]\nbody\n[link test://l l]\n{\n  "n": 1\n}\n');
  });

  it('tool arguments must be a JSON object', () => {
    assert.deepEqual(parseToolArguments(undefined), {});
    assert.deepEqual(parseToolArguments('{"a":1}'), { a: 1 });
    assert.throws(() => parseToolArguments('[1]'), /JSON object/);
    assert.throws(() => parseToolArguments('{'), /not valid JSON/);
  });
});
