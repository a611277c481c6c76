/**
 * Finding and opening the web console of a running gateway: the URL it wrote to
 * `<stateDir>/console-url`, and the platform's URL opener (`switchboard console`, `inspect`).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { CliFailure } from './args.js';
import { CONSOLE_URL_FILE } from './gatewayConsole.js';

/** The console URL a running gateway wrote to `<stateDir>/console-url`; a clear failure when there is none. */
export async function consoleUrl(stateDir: string): Promise<string> {
  let text: string;
  try {
    text = (await readFile(resolvePath(stateDir, CONSOLE_URL_FILE), 'utf8')).trim();
  } catch {
    throw new CliFailure(`No console URL in ${resolvePath(stateDir, CONSOLE_URL_FILE)}: start the gateway first (switchboard gateway), with switchboard.console on (the default).`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliFailure(`${resolvePath(stateDir, CONSOLE_URL_FILE)} does not hold a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliFailure(`${resolvePath(stateDir, CONSOLE_URL_FILE)} does not hold an http(s) URL`);
  return url.href;
}

/** {@link consoleUrl}, once something answers there (any HTTP status); a stale URL of a stopped gateway is a clear failure. */
export async function liveConsoleUrl(stateDir: string): Promise<string> {
  const url = await consoleUrl(stateDir);
  try {
    const response = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(3000) });
    await response.body?.cancel();
  } catch {
    throw new CliFailure(`The gateway is not running: nothing answers at ${url} (written by its last start to ${resolvePath(stateDir, CONSOLE_URL_FILE)}). Start it (switchboard gateway), then run this again.`);
  }
  return url;
}

/** Starts the platform's URL opener; resolves false when there is none. The URL is one argument, never shell text. */
export function openInBrowser(url: string): Promise<boolean> {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
