// Runs `switchboard` (src/cli/main.ts through tsx) as a real process, for the CLI tests.
import { execFile, spawn, type ChildProcess } from 'node:child_process';

/** The repository root (the CLI runs from there). */
export const root = new URL('../../../', import.meta.url).pathname;
/** The node arguments that run the CLI from source. */
export const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
/** A stdio command line that runs the demo server. */
export const STDIO_SERVER = `${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts everything --stdio --log-level error`;

/** How a CLI run ended. */
export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI with `args` to its end (`env` adds variables). */
export function cli(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { cwd: root, timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '', ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running CLI process whose combined output can be awaited line by line. */
export interface RunningCli {
  readonly child: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the output once it matches `pattern` (rejects if the process ends first). */
  waitFor(pattern: RegExp): Promise<string>;
  /** Stops the process and waits for its end. */
  stop(): Promise<void>;
}

/** Starts the CLI with `args` in the background. */
export function startCli(args: readonly string[], env: Readonly<Record<string, string>> = {}): RunningCli {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: root, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    text += chunk.toString('utf8');
    for (const check of [...waiters]) check();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => text,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(text)) return;
          waiters.delete(check);
          resolve(text);
        };
        waiters.add(check);
        check();
        void exited.then(() => {
          if (waiters.delete(check)) reject(new Error(`the process ended before printing ${String(pattern)}; output:\n${text}`));
        });
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}
