/**
 * One yes/no question on the terminal (stderr), default no.
 *
 * @module
 */

/** Asks `text` with ` [y/N] `; true only for y or yes. */
export async function askYesNo(text: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${text} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
