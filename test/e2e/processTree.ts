// Finding the processes a test started, on Linux, by walking /proc: the descendants of a pid
// (by each process's ppid, taken while they still hang together) and every process whose
// argv or environment names a marker (found even after it was re-parented to init).
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** The pids of /proc (empty where there is no /proc). */
function pids(): number[] {
  if (!existsSync('/proc/self/stat')) return [];
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** The state letter and ppid of `pid` from /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: state ?? '', ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` still runs (a zombie no one reaps yet does not). */
export function alive(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    const s = stat(pid);
    return s !== undefined && s.state !== 'Z';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every running descendant of `root` (children, their children, ...), by ppid. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const s = stat(pid);
    if (s === undefined || s.state === 'Z') continue;
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The running processes (not this one) whose argv or environment contains `marker`. */
export function processesMentioning(marker: string): number[] {
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'latin1');
    } catch {
      return '';
    }
  };
  return pids().filter((pid) => pid !== process.pid && alive(pid) && (read(`/proc/${pid}/cmdline`).includes(marker) || read(`/proc/${pid}/environ`).includes(marker)));
}

/** Polls `probe` every 25 ms until it returns a value; rejects with `what` after `ms`. */
export async function waitFor<T>(what: string | (() => string), probe: () => T | undefined, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
