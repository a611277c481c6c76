// The console Inspector's question table (issue #33): a server's elicitation during an Inspector
// call waits here for the page. One answer per question; a forged id, another call's id, a
// second answer and a malformed answer are refused (and leave the question waiting); a question
// nobody answers is declined at its timeout, one whose call ended is cancelled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ElicitParams } from '../../../src/protocol/model/elicitation.js';
import { InspectorQuestions, MAX_QUESTIONS_PER_CALL, type InspectorQuestion, type InspectorQuestionEvent } from '../../../src/console/inspectorQuestions.js';

const CALL = 'call-aaaaaaaa';
const PARAMS = { message: 'Who are you?', requestedSchema: { type: 'object', properties: { username: { type: 'string' } }, required: ['username'] } } as unknown as ElicitParams;

/** Asks one question and returns it as the table published it, with the pending answer. */
function askOne(table: InspectorQuestions, signal?: AbortSignal) {
  const events: InspectorQuestionEvent[] = [];
  table.subscribe((e) => events.push(e));
  const answer = table.ask(CALL, 'everything', PARAMS, signal);
  const asked = events.find((e) => e.type === 'asked');
  assert.ok(asked?.type === 'asked', 'the question is published when asked');
  return { answer, question: asked.question as InspectorQuestion, events };
}

describe('console inspector: the question table', { timeout: 5_000 }, () => {
  it('publishes the vetted question with an id of its own, and takes exactly one answer (a replayed answer is refused)', async () => {
    const table = new InspectorQuestions();
    const { answer, question, events } = askOne(table);
    assert.equal(question.call, CALL);
    assert.match(question.question, /^[0-9a-f-]{36}$/);
    assert.deepEqual(table.pending(), [question]);
    assert.equal(table.answer(CALL, question.question, 'accept', { username: 'ada' }), undefined);
    assert.deepEqual(await answer, { action: 'accept', content: { username: 'ada' } });
    const replay = table.answer(CALL, question.question, 'accept', { username: 'mallory' });
    assert.equal(replay?.status, 404, 'a second answer to the same question is refused');
    assert.deepEqual(table.pending(), []);
    assert.deepEqual(events.at(-1), { type: 'settled', call: CALL, question: question.question, action: 'accept', by: 'person' });
  });

  it('forged answers: an unknown question id, and the right id under another call, are refused and leave the question waiting', async () => {
    const table = new InspectorQuestions();
    const { answer, question } = askOne(table);
    assert.equal(table.answer(CALL, '00000000-0000-4000-8000-000000000000', 'accept', { username: 'x' })?.status, 404);
    assert.equal(table.answer('call-bbbbbbbb', question.question, 'accept', { username: 'x' })?.status, 404, "another call's page cannot answer this call's question");
    assert.equal(table.answer(undefined, question.question, 'accept', { username: 'x' })?.status, 404);
    assert.equal(table.pending().length, 1, 'still waiting for its own page');
    assert.equal(table.answer(CALL, question.question, 'decline', undefined), undefined);
    assert.deepEqual(await answer, { action: 'decline' });
  });

  it('malformed answers are refused (400) without settling: an unknown action, nested content, content on a decline', async () => {
    const table = new InspectorQuestions();
    const { answer, question } = askOne(table);
    assert.equal(table.answer(CALL, question.question, 'approve', {})?.status, 400);
    assert.equal(table.answer(CALL, question.question, 'accept', { username: { nested: 'object' } })?.status, 400);
    assert.equal(table.answer(CALL, question.question, 'accept', 'text')?.status, 400);
    assert.equal(table.answer(CALL, question.question, 'decline', { username: 'x' })?.status, 400);
    assert.equal(table.pending().length, 1);
    assert.equal(table.answer(CALL, question.question, 'cancel', undefined), undefined);
    assert.deepEqual(await answer, { action: 'cancel' });
  });

  it('a question nobody answers is declined at its timeout, and an answer after that is refused', async () => {
    const table = new InspectorQuestions({ timeoutMs: 30 });
    const { answer, question, events } = askOne(table);
    assert.deepEqual(await answer, { action: 'decline' });
    assert.deepEqual(events.at(-1), { type: 'settled', call: CALL, question: question.question, action: 'decline', by: 'timeout' });
    assert.equal(table.answer(CALL, question.question, 'accept', { username: 'late' })?.status, 404);
  });

  it('a question whose call ended (the page went away, the call was cancelled) is cancelled and leaves the table', async () => {
    const table = new InspectorQuestions();
    const controller = new AbortController();
    const { answer, question } = askOne(table, controller.signal);
    controller.abort(new Error('gone'));
    assert.deepEqual(await answer, { action: 'cancel' });
    assert.equal(table.answer(CALL, question.question, 'accept', { username: 'x' })?.status, 404);
    assert.deepEqual(await table.ask(CALL, 'everything', PARAMS, controller.signal), { action: 'cancel' }, 'a call already ended asks nobody');
    assert.deepEqual(table.pending(), []);
  });

  it('a server flooding questions in one call: past the limit each is declined at once and never shown; other calls still ask', async () => {
    const table = new InspectorQuestions();
    const shown: InspectorQuestionEvent[] = [];
    table.subscribe((e) => (e.type === 'asked' ? shown.push(e) : undefined));
    const waiting = Array.from({ length: MAX_QUESTIONS_PER_CALL }, () => table.ask(CALL, 'everything', PARAMS));
    assert.deepEqual(await table.ask(CALL, 'everything', PARAMS), { action: 'decline' });
    assert.equal(shown.length, MAX_QUESTIONS_PER_CALL);
    const other = table.ask('call-cccccccc', 'everything', PARAMS);
    assert.equal(shown.length, MAX_QUESTIONS_PER_CALL + 1);
    table.close();
    assert.deepEqual(await Promise.all([...waiting, other]), Array.from({ length: MAX_QUESTIONS_PER_CALL + 1 }, () => ({ action: 'cancel' })));
  });

  it('a URL-mode question (a link put in front of the admin) is declined without being shown', async () => {
    const table = new InspectorQuestions();
    const shown: InspectorQuestionEvent[] = [];
    table.subscribe((e) => shown.push(e));
    const url = { mode: 'url', message: 'Sign in here', url: 'https://evil.example/login', elicitationId: 'e1' } as unknown as ElicitParams;
    assert.deepEqual(await table.ask(CALL, 'everything', url), { action: 'decline' });
    assert.deepEqual(shown, []);
  });
});
