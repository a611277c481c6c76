/**
 * The questions a downstream server asks during an Inspector call (`elicitation/create`),
 * waiting for the person at the console page that made the call. Each question gets an id of
 * its own (random, never the server's), belongs to one call, and takes one answer: a second
 * answer, an answer naming another call, or an id that never was or already settled is
 * refused. A question nobody answers within `timeoutMs` is declined; one whose call ended
 * (cancelled, the page went away) is cancelled. Either way it leaves the table. A call gets at
 * most {@link MAX_QUESTIONS_PER_CALL} waiting questions, and URL-mode questions are declined
 * without being shown (forms only).
 *
 * The table sees questions only after the chain vetted them (`host.serverRequest`, through
 * `vettedHandlers`), and the answer it resolves goes back through the same chain run (the
 * value-taint guard of answers) before it reaches the server.
 *
 * @module
 */
import type { ElicitParams, ElicitResult } from '../protocol/model/elicitation.js';
import { ElicitResult as ElicitResultSchema } from '../protocol/model/elicitation.js';
import { is } from '../util/schema.js';

/** A question as the console page sees it. */
export interface InspectorQuestion {
  /** The Inspector call it belongs to (the id the page sent with `inspector/call`). */
  readonly call: string;
  /** This question's own id. */
  readonly question: string;
  /** The server that asks. */
  readonly server: string;
  /** What it asks, as the chain's sanitiser left it. */
  readonly params: ElicitParams;
  /** When it is declined unanswered (ISO time). */
  readonly expiresAt: string;
}

/** What the table tells its listener. */
export type InspectorQuestionEvent = { readonly type: 'asked'; readonly question: InspectorQuestion } | { readonly type: 'settled'; readonly call: string; readonly question: string; readonly action: ElicitResult['action']; readonly by: 'person' | 'timeout' | 'call-ended' };

/** Why an answer was refused (HTTP status and sentence). */
export interface AnswerRefusal {
  readonly status: number;
  readonly error: string;
}

interface Waiting {
  readonly question: InspectorQuestion;
  readonly settle: (result: ElicitResult, by: 'person' | 'timeout' | 'call-ended') => void;
}

/** Default: a question waits five minutes, then it is declined. */
export const DEFAULT_QUESTION_TIMEOUT_MS = 5 * 60_000;

/** At most this many questions of one call wait at once; a server that asks more is declined at once (no flood of forms). */
export const MAX_QUESTIONS_PER_CALL = 4;

/** The well-formed call ids a page may choose (`inspector/call`'s `call`). */
export const CALL_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The pending-question table of the console's Inspector. */
export class InspectorQuestions {
  readonly #waiting = new Map<string, Waiting>();
  readonly #listeners = new Set<(event: InspectorQuestionEvent) => void>();
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(options: { readonly timeoutMs?: number; readonly now?: () => number } = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The questions waiting now (for a page that opens its event stream late). */
  pending(): readonly InspectorQuestion[] {
    return [...this.#waiting.values()].map((w) => w.question);
  }

  /** Listens to questions asked and settled; returns the remover. */
  subscribe(listener: (event: InspectorQuestionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Puts `params` (already vetted) to the person behind call `call`; resolves with their
   * answer, `decline` after the timeout, `cancel` when `signal` aborts (the call ended).
   */
  ask(call: string, server: string, params: ElicitParams, signal?: AbortSignal): Promise<ElicitResult> {
    if (signal?.aborted === true) return Promise.resolve({ action: 'cancel' });
    // URL mode would put a server's link in front of the admin: the console answers forms only.
    if ((params as { mode?: unknown }).mode === 'url') return Promise.resolve({ action: 'decline' });
    let open = 0;
    for (const w of this.#waiting.values()) if (w.question.call === call) open++;
    if (open >= MAX_QUESTIONS_PER_CALL) return Promise.resolve({ action: 'decline' });
    const id = crypto.randomUUID();
    return new Promise<ElicitResult>((resolve) => {
      const onAbort = (): void => settle({ action: 'cancel' }, 'call-ended');
      const timer = setTimeout(() => settle({ action: 'decline' }, 'timeout'), this.#timeoutMs);
      const question: InspectorQuestion = { call, question: id, server, params, expiresAt: new Date(this.#now() + this.#timeoutMs).toISOString() };
      const settle = (result: ElicitResult, by: 'person' | 'timeout' | 'call-ended'): void => {
        if (!this.#waiting.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#emit({ type: 'settled', call, question: id, action: result.action, by });
        resolve(result);
      };
      this.#waiting.set(id, { question, settle });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#emit({ type: 'asked', question });
    });
  }

  /**
   * Answers question `question` of call `call` once: undefined when taken, else why not
   * (404 for an id that is not waiting or belongs to another call, 400 for a malformed answer).
   */
  answer(call: unknown, question: unknown, action: unknown, content: unknown): AnswerRefusal | undefined {
    const waiting = typeof question === 'string' ? this.#waiting.get(question) : undefined;
    // One sentence for "never asked", "already answered", "expired" and "another call's": an id tells nothing.
    if (waiting === undefined || waiting.question.call !== call) return { status: 404, error: 'no such question is waiting (it was answered, expired, or belongs to another call)' };
    const result: Record<string, unknown> = { action };
    if (action === 'accept') result['content'] = content ?? {};
    else if (content !== undefined) return { status: 400, error: 'only an "accept" answer carries "content"' };
    if (!is(ElicitResultSchema, result)) return { status: 400, error: '"action" is accept, decline or cancel; "content" is an object of strings, numbers, booleans or string lists' };
    waiting.settle(result, 'person');
    return undefined;
  }

  /** Cancels every waiting question (the console closes). */
  close(): void {
    for (const w of [...this.#waiting.values()]) w.settle({ action: 'cancel' }, 'call-ended');
  }

  #emit(event: InspectorQuestionEvent): void {
    for (const l of this.#listeners) l(event);
  }
}
