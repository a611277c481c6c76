// The terminal form for form-mode elicitation: fields from the requested schema, answers
// checked against it, cancel and decline; and the whole path in a pseudo-terminal (`script`).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { listen, type ListeningServer } from '../../../src/adapters/nodeHttp.js';
import { createEverythingServer } from '../../../src/demo/everything/server.js';
import { fieldQuestion, formFields, parseFieldAnswer, runElicitationForm, type Ask } from '../../../src/cli/elicitationForm.js';
import type { ElicitFormParams } from '../../../src/protocol/model/elicitation.js';
import { createStreamableHttpHandler } from '../../../src/transport/http/server/server.js';
import { CLI, root } from './cliProcess.js';

const params: ElicitFormParams = {
  message: 'Book a table',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Your name', minLength: 2 },
      guests: { type: 'integer', minimum: 1, maximum: 8 },
      outside: { type: 'boolean', default: false },
      time: { type: 'string', oneOf: [{ const: '19', title: '7 pm' }, { const: '21', title: '9 pm' }] },
      diet: { type: 'array', items: { type: 'string', enum: ['vegan', 'nuts-free', 'halal'] } },
      note: { type: 'string' },
    },
    required: ['name', 'guests', 'time'],
  },
};

/** An `ask` that replays `answers` and records the questions. */
function scripted(answers: (string | undefined)[]): { ask: Ask; questions: string[] } {
  const questions: string[] = [];
  return { questions, ask: (question) => (questions.push(question), Promise.resolve(answers.shift())) };
}

describe('elicitation form', () => {
  it('builds one field per property with its kind, options and required flag', () => {
    const fields = formFields(params);
    assert.deepEqual(
      fields.map((f) => [f.name, f.kind, f.required, f.options.map((o) => o.value)]),
      [
        ['name', 'string', true, []],
        ['guests', 'integer', true, []],
        ['outside', 'boolean', false, []],
        ['time', 'choice', true, ['19', '21']],
        ['diet', 'choices', false, ['vegan', 'nuts-free', 'halal']],
        ['note', 'string', false, []],
      ],
    );
    assert.equal(fieldQuestion(fields[3] as never), '  1) 7 pm (19)\n  2) 9 pm (21)\ntime * (number): ');
    assert.equal(fieldQuestion(fields[2] as never), 'outside [y/n] [default false]: ');
  });

  it('checks answers against the schema: bounds, choices, required', () => {
    const [name, guests, , time, diet] = formFields(params) as never[];
    assert.deepEqual(parseFieldAnswer(name as never, 'A'), { error: 'at least 2 characters' });
    assert.deepEqual(parseFieldAnswer(name as never, ''), { error: 'this field is required' });
    assert.deepEqual(parseFieldAnswer(guests as never, '9'), { error: 'at most 8' });
    assert.deepEqual(parseFieldAnswer(guests as never, '2.5'), { error: 'enter a whole number' });
    assert.deepEqual(parseFieldAnswer(time as never, '3'), { error: 'choose 1-2' });
    assert.deepEqual(parseFieldAnswer(time as never, '2'), { value: '21' });
    assert.deepEqual(parseFieldAnswer(diet as never, '1, halal,1'), { value: ['vegan', 'halal'] });
  });

  it('asks again after a bad answer, fills defaults, skips empty optional fields, accepts', async () => {
    const { ask, questions } = scripted(['Ada', 'many', '4', '', '1', '2', '', 'y']);
    const out: string[] = [];
    const result = await runElicitationForm(params, ask, (t) => out.push(t));
    assert.deepEqual(result, { action: 'accept', content: { name: 'Ada', guests: 4, outside: false, time: '19', diet: ['nuts-free'] } });
    assert.ok(out.includes('  enter a number\n'));
    assert.equal(questions.filter((q) => q.startsWith('guests')).length, 2);
  });

  it('end of input cancels; answering no to "send?" declines', async () => {
    assert.deepEqual(await runElicitationForm(params, scripted(['Ada', undefined]).ask, () => undefined), { action: 'cancel' });
    assert.deepEqual(await runElicitationForm(params, scripted(['Ada', '2', 'n', '1', '', '', 'no']).ask, () => undefined), { action: 'decline' });
  });
});

describe('elicitation in a terminal (a pseudo-terminal through util-linux script)', () => {
  let running: ListeningServer;
  before(async () => {
    running = await listen(createStreamableHttpHandler(createEverythingServer({ watchIntervalMs: 0 }), { path: '/mcp' }), { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await running.close();
  });

  it('asks each field at the prompt and sends the answer', async () => {
    const url = new URL('/mcp', running.url).href;
    const command = [process.execPath, ...CLI, 'call', url, 'test_elicitation', '{"message":"Who are you?"}'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let text = '';
    const seen: Array<[RegExp, () => void]> = [];
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      for (const entry of [...seen]) {
        if (!entry[0].test(text)) continue;
        seen.splice(seen.indexOf(entry), 1);
        entry[1]();
      }
    });
    const ended = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
    const printed = (pattern: RegExp): Promise<void> =>
      new Promise((resolve, reject) => {
        if (pattern.test(text)) return resolve();
        seen.push([pattern, resolve]);
        void ended.then(() => reject(new Error(`ended before ${String(pattern)}:\n${text}`)));
      });
    await printed(/The server asks: Who are you\?[\s\S]*username \*: /);
    child.stdin.write('ada\r');
    await printed(/email \*: /);
    child.stdin.write('ada@example.com\r');
    await printed(/Send this answer to the server\? \[Y\/n\]: /);
    child.stdin.write('\r');
    assert.equal(await ended, 0, text);
    assert.match(text, /action=accept/);
    assert.match(text, /ada@example\.com/);
  });
});
