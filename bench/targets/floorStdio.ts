/**
 * The stdio floor: `readline` over stdin, `JSON.parse` each line, answer with
 * {@link floorAnswerer}, one line per answer on stdout.
 *
 * @module
 */
import { createInterface } from 'node:readline';
import { targetArgs } from './common.js';
import { floorAnswerer } from './floorCore.js';

const answer = floorAnswerer(targetArgs().tools);
createInterface({ input: process.stdin }).on('line', (line) => {
  const reply = answer(JSON.parse(line) as Record<string, unknown>);
  if (reply !== undefined) process.stdout.write(JSON.stringify(reply) + '\n');
});
