/**
 * `GET /console/api/events`: the console's server-sent events, pushed only to open pages (no
 * polling, nothing done while nobody looks). Events: `consent-request` (each waiting request
 * once on open, then each new one), `consent-answered`, `consent-closed`, `inspector-question`
 * (a server's question during an Inspector call: each waiting one on open, then each new one),
 * `inspector-question-settled`, `changed` (the
 * catalog, health or pins changed: the page refetches), and `metrics` (every 10 s while a
 * stream is open: the bucket that just closed). A stream ends when its session ends.
 *
 * @module
 */
import type { ConsentQueueEvent } from '../host/consent/consentQueue.js';
import { encodeSseComment, encodeSseEvent } from '../transport/http/sse.js';
import { PushSseStream } from '../transport/http/server/sseStream.js';
import type { HttpRequestLike, HttpResponseLike } from '../transport/http/server/types.js';
import { BUCKET_MS } from './consoleMetrics.js';
import type { ConsoleSession, ConsoleSessions } from './consoleSession.js';
import type { InspectorQuestions } from './inspectorQuestions.js';
import type { ConsoleOptions } from './consoleTypes.js';

interface Stream {
  readonly session: string | undefined;
  send(event: string, data: unknown): void;
  close(): void;
}

/** The open event streams and what feeds them. */
export class ConsoleEvents {
  readonly #o: ConsoleOptions;
  readonly #streams = new Set<Stream>();
  readonly #questions: InspectorQuestions;
  #stopFeeds: (() => void) | undefined;

  constructor(options: ConsoleOptions, sessions: ConsoleSessions, questions: InspectorQuestions) {
    this.#o = options;
    this.#questions = questions;
    sessions.onEnd((key) => {
      for (const s of [...this.#streams]) if (s.session === key) s.close();
    });
  }

  /** Open streams. */
  get size(): number {
    return this.#streams.size;
  }

  /** Ends every stream. */
  close(): void {
    for (const s of [...this.#streams]) s.close();
  }

  /** Opens a stream for `request` (`session` undefined for an admin bearer client). */
  open(request: HttpRequestLike, session: ConsoleSession | undefined): HttpResponseLike {
    const keepAlive: { timer?: ReturnType<typeof setInterval> } = {};
    const end = (): void => {
      clearInterval(keepAlive.timer);
      this.#streams.delete(stream);
      if (this.#streams.size === 0) this.#stop();
    };
    const sse = new PushSseStream(end);
    const stream: Stream = {
      session: session?.key,
      send: (event, data) => sse.write(encodeSseEvent({ event, data: JSON.stringify(data) })),
      close: () => {
        end();
        sse.close();
      },
    };
    this.#streams.add(stream);
    if (this.#stopFeeds === undefined) this.#start();
    for (const pending of this.#o.consent?.queue.pending() ?? []) stream.send('consent-request', pending);
    for (const question of this.#questions.pending()) stream.send('inspector-question', question);
    keepAlive.timer = setInterval(() => sse.write(encodeSseComment('keep-alive')), this.#o.keepAliveMs ?? 15_000);
    (keepAlive.timer as { unref?: () => void }).unref?.();
    request.onAbort?.(() => sse.cancel());
    return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }, body: sse };
  }

  #broadcast(event: string, data: unknown): void {
    for (const s of this.#streams) s.send(event, data);
  }

  /** Subscribes to the queue, the host and the clock while at least one stream is open. */
  #start(): void {
    const stops: (() => void)[] = [];
    const queue = this.#o.consent?.queue;
    if (queue !== undefined) {
      stops.push(
        queue.subscribe((e: ConsentQueueEvent) => {
          if (e.type === 'request') this.#broadcast('consent-request', e.request);
          else if (e.type === 'answered') this.#broadcast('consent-answered', { id: e.id, approved: e.approved, approver: e.approver });
          else this.#broadcast('consent-closed', { id: e.id, reason: e.reason });
        }),
      );
    }
    stops.push(
      this.#questions.subscribe((e) => {
        if (e.type === 'asked') this.#broadcast('inspector-question', e.question);
        else this.#broadcast('inspector-question-settled', { call: e.call, question: e.question, action: e.action, by: e.by });
      }),
    );
    stops.push(this.#o.host.onChange((what) => this.#broadcast('changed', { what })));
    // Aligned to bucket boundaries: each tick reports the bucket that just closed.
    const now = (this.#o.now ?? Date.now)();
    let interval: ReturnType<typeof setInterval> | undefined;
    const first = setTimeout(
      () => {
        this.#broadcast('metrics', this.#o.metrics.lastClosed());
        interval = setInterval(() => this.#broadcast('metrics', this.#o.metrics.lastClosed()), BUCKET_MS);
        (interval as { unref?: () => void }).unref?.();
      },
      BUCKET_MS - (now % BUCKET_MS) + 5,
    );
    (first as { unref?: () => void }).unref?.();
    stops.push(() => {
      clearTimeout(first);
      clearInterval(interval);
    });
    this.#stopFeeds = () => {
      for (const stop of stops) stop();
    };
  }

  #stop(): void {
    this.#stopFeeds?.();
    this.#stopFeeds = undefined;
  }

  /** Tells open pages that something they show changed (pins approved, a launch started). */
  changed(what: string): void {
    this.#broadcast('changed', { what });
  }
}
