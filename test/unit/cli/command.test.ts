// The command framework: parsing with node:util parseArgs (strict), one-line usage errors with
// a suggestion, help generated from the declaration, and the dispatcher as a user meets it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/args.js';
import { closest, commandHelp, defineCommand, editDistance, mainHelp, noPositionals, parseCommandLine, wantsHelp } from '../../../src/cli/command.js';
import { cli } from './cliProcess.js';

const sample = defineCommand({
  name: 'sample',
  summary: 'a command for tests',
  usage: ['[options] <thing>'],
  description: 'Does nothing.',
  positionals: [{ name: '<thing>', description: 'what to do it to' }],
  options: {
    port: { type: 'string', value: 'N', description: 'a port', default: '8765' },
    json: { type: 'boolean', description: 'print JSON' },
    lines: { type: 'string', short: 'n', value: 'N', description: 'how many' },
    header: { type: 'string', multiple: true, value: 'K:V', description: 'a header' },
  },
  run: () => Promise.resolve(0),
});

const usage = (argv: readonly string[]): string => {
  try {
    parseCommandLine(sample, argv);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail(`parsed ${JSON.stringify(argv)}`);
};

describe('parseCommandLine', () => {
  it('reads flags, values (--k v and --k=v), short aliases, repeated options, positionals and what follows --', () => {
    const parsed = parseCommandLine(sample, ['a', '--port', '80', '--json', '-n', '3', '--header=A:1', '--header', 'B:2', 'b', '--', 'node', '--port', 'x']);
    assert.deepEqual(parsed.options, { port: '80', json: true, lines: '3', header: ['A:1', 'B:2'] });
    assert.deepEqual(parsed.positionals, ['a', 'b']);
    assert.deepEqual(parsed.afterDash, ['node', '--port', 'x']);
    assert.equal(parseCommandLine(sample, ['a']).afterDash, undefined);
    assert.deepEqual(parseCommandLine(sample, ['--']).afterDash, []);
  });

  it('a misspelt option is one line naming the command and the closest declared option', () => {
    assert.equal(usage(['--prot', '80']), 'unknown option --prot for sample; did you mean --port?');
    assert.equal(usage(['--jsno']), 'unknown option --jsno for sample; did you mean --json?');
    assert.equal(usage(['--zzzzzz']), 'unknown option --zzzzzz for sample');
    assert.equal(usage(['-x']), 'unknown option -x for sample');
  });

  it('a flag with a value, a value option without one, or with what looks like another option, is refused', () => {
    assert.equal(usage(['--json=yes']), '--json takes no value');
    assert.equal(usage(['--port']), '--port needs a value');
    assert.equal(usage(['--port', '--json']), '--port needs a value, not "--json" (write --port=--json if that is the value)');
    assert.deepEqual(parseCommandLine(sample, ['--port=-1']).options, { port: '-1' });
  });

  it('noPositionals refuses a positional before or after --', () => {
    assert.throws(() => noPositionals(parseCommandLine(sample, ['x'])), /unexpected argument "x"/);
    assert.throws(() => noPositionals(parseCommandLine(sample, ['--', 'y'])), /unexpected argument "y"/);
    noPositionals(parseCommandLine(sample, ['--json']));
  });

  it('help is asked with --help or -h before --, not after it', () => {
    assert.equal(wantsHelp(['x', '--help']), true);
    assert.equal(wantsHelp(['-h']), true);
    assert.equal(wantsHelp(['--', 'server', '--help']), false);
  });
});

describe('suggestions', () => {
  it('edit distance, and a guess only when it is close', () => {
    assert.equal(editDistance('prot', 'port'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(closest('gatway', ['gateway', 'everything']), 'gateway');
    assert.equal(closest('prot', ['port', 'path']), 'port');
    assert.equal(closest('conf', ['config', 'consent']), 'config');
    assert.equal(closest('banana', ['gateway', 'scan']), undefined);
  });
});

describe('generated help', () => {
  it('has the usage, the description, the arguments and every option with its placeholder, default and repeatability', () => {
    const help = commandHelp(sample);
    assert.ok(help.startsWith('Usage: switchboard sample [options] <thing>\n\nDoes nothing.\n\nArguments:\n  <thing>'), help);
    assert.match(help, /^ {2}--port N +a port \(default 8765\)$/m);
    assert.match(help, /^ {2}-n, --lines N +how many$/m);
    assert.match(help, /^ {2}--header K:V +a header \(repeatable\)$/m);
    assert.match(help, /^ {2}-h, --help +show this help$/m);
    for (const line of help.split('\n')) assert.ok(line.length <= 100, line);
  });

  it('the top-level help lists the commands with their summaries', () => {
    assert.match(mainHelp([sample]), /^ {2}sample +a command for tests$/m);
  });
});

describe('switchboard (the dispatcher, as a user runs it)', () => {
  it('an unknown option is one line with a suggestion and a pointer to the help, exit 2', { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await cli(['gateway', '--prot', '9']);
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(stderr, "switchboard: unknown option --prot for gateway; did you mean --port?\nRun 'switchboard gateway --help' for usage.\n");
  });

  it('an unknown command is one line with a suggestion, exit 2', { timeout: 60_000 }, async () => {
    const { code, stderr } = await cli(['gatway']);
    assert.equal(code, 2);
    assert.equal(stderr, "switchboard: unknown command \"gatway\"; did you mean gateway?\nRun 'switchboard --help' for the list of commands.\n");
  });

  it('--help lists every command; <command> --help prints its generated help', { timeout: 60_000 }, async () => {
    const top = await cli(['--help']);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /^ {2}gateway +serve many MCP servers behind one guarded endpoint/m);
    assert.match(top.stdout, /^ {2}console +open the web console/m);
    const gateway = await cli(['gateway', '--help']);
    assert.equal(gateway.code, 0);
    assert.match(gateway.stdout, /^Usage: switchboard gateway /);
    assert.match(gateway.stdout, /^ {2}--port N +HTTP port \(0 = a free one\) \(default the config's gateway.port, 8765\)$/m);
  });

  it('-n is --lines for audit tail', { timeout: 60_000 }, async () => {
    const { code, stderr } = await cli(['audit', 'tail', '-n', '0', '--file', '/nonexistent/audit.db']);
    assert.equal(code, 1);
    assert.match(stderr, /no audit log at \/nonexistent\/audit\.db/);
  });
});
