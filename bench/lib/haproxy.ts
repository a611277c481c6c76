/**
 * HAProxy (Debian's package) in front of gateway instances on loopback, for the cluster test
 * (test/cluster/) and the cluster lane of the benchmark (bench/cluster.ts):
 * the config is generated in a temp folder (round robin, no stickiness, `GET /healthz` checks
 * every 200 ms, an instance out after 2 failed checks, a refused connection retried on another
 * instance), and `haproxy -db` runs as a child process. The reference setup with every
 * setting explained is examples/haproxy.cfg.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free loopback port (closed again; HAProxy binds it next). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The generated config for `backends` (host:port each), listening on `port`. */
export function haproxyConfig(port: number, backends: readonly string[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 10s',
    '  option redispatch',
    '  retries 2',
    '  retry-on conn-failure',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  default_backend gateways',
    'backend gateways',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    '  http-check expect status 200',
    '  default-server inter 200ms fall 2 rise 1',
    ...backends.map((b, i) => `  server g${i + 1} ${b} check`),
    '',
  ].join('\n');
}

/** A running HAProxy. */
export interface RunningHaproxy {
  readonly url: URL;
  readonly config: string;
  stop(): Promise<void>;
}

/** Starts HAProxy in front of `backends`, serving `path`; resolves once it answers `/healthz`. */
export async function startHaproxy(backends: readonly string[], path: string): Promise<RunningHaproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'sb-haproxy-'));
  const port = await freePort();
  const config = haproxyConfig(port, backends);
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Polls until the listener answers (HAProxy says nothing when it is ready); fails if it exits first.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${String(child.exitCode)}:\n${err}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not answer on ${port}:\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: new URL(path, `http://127.0.0.1:${port}`),
    config,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
