/**
 * The `@example`s of `sse.ts`, type-checked here (never bundled or run; `npm test` checks the
 * JSDoc copies match).
 *
 * @module
 */
import { encodeSseEvent, SseParser } from './sse.js';

/** {@link encodeSseEvent}. */
export function encodeSseEventExample(): void {
  encodeSseEvent({ data: 'a\nb' }); // "data: a\ndata: b\n\n"
}

/** {@link SseParser} over a `fetch` response body. */
export async function sseParserExample(response: { body: AsyncIterable<Uint8Array> }, handle: (message: unknown) => void): Promise<void> {
  const parser = new SseParser({ onEvent: (e) => handle(JSON.parse(e.data)) });
  for await (const chunk of response.body) parser.push(chunk);
  parser.end();
}
