/**
 * Process plumbing for the bench: spawning pinned to a core with `taskset`, reading a
 * process's CPU time and resident memory from `/proc`, and waiting for a ready line.
 *
 * @module
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux we run on.
const hasTaskset = existsSync('/usr/bin/taskset') || existsSync('/bin/taskset');

/** The core servers run on and the core load generators run on (the same core on 1-CPU machines). */
export const SERVER_CPU = cpus().length > 1 ? 1 : 0;
/** See {@link SERVER_CPU}. */
export const LOADGEN_CPU = 0;

/** Whether processes are pinned (taskset present). */
export const pinned = hasTaskset;

/** Spawns `command args` pinned to `cpu` (when taskset exists). taskset execs, so the pid is the program's. */
export function spawnPinned(cpu: number, command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  return hasTaskset ? spawn('taskset', ['-c', String(cpu), command, ...args], options) : spawn(command, args, options);
}

/** User + system CPU time of `pid` in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/** Resident set size of `pid` in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return match === null ? NaN : Number(match[1]) * 1024;
}

/**
 * Resolves with the first stdout line of `child` that matches `pattern` (or stderr line too,
 * with `stderrToo`); rejects on exit or timeout.
 */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 15_000, stderrToo = false): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const done = (error?: Error, match?: RegExpExecArray): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onErr);
      child.off('exit', onExit);
      if (error !== undefined) reject(error);
      else resolve(match as RegExpExecArray);
    };
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const match = pattern.exec(buffered);
      if (match !== null) done(undefined, match);
    };
    const onErr = (chunk: Buffer): void => {
      stderr += chunk.toString('utf8');
      const match = stderrToo ? pattern.exec(stderr) : null;
      if (match !== null) done(undefined, match);
    };
    const onExit = (code: number | null): void => done(new Error(`exited (${code}) before ready: ${stderr.slice(-800)}`));
    const timer = setTimeout(() => done(new Error(`not ready after ${timeoutMs} ms: ${stderr.slice(-800)}`)), timeoutMs);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onErr);
    child.once('exit', onExit);
  });
}

/** Kills `child` and waits for it to exit. */
export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
  });
}

/** Runs a child to completion and resolves with its stdout parsed as JSON (the last line). */
export function runJson<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`exit ${code}: ${(err || out).trim().slice(-1200)}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`no JSON result: ${(out + err).slice(-800)}`));
      }
    });
  });
}
