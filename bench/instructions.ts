/**
 * `npm run bench:instructions`: instructions per HTTP `tools/call` of compiled targets,
 * counted by valgrind's callgrind, every thread of the server process included (the JIT
 * compiler's and the GC's too). Unlike req/s or CPU µs per request, the count hardly moves
 * with the other work on the machine, so two checkouts can be compared on a busy one: build
 * each (`npm run build` and `tsc -p bench/tsconfig.json`), then name their target entries.
 *
 * Each target runs under callgrind; after `--warmup` requests (JIT tier-up takes ~15,000
 * here: fewer measure the compiler, not the steady state) the counters are dumped and reset,
 * then `--requests` requests are counted. Keep-alive connections from `lib/httpClient.ts`,
 * `--concurrency` in flight, every answer checked.
 *
 * Usage: `tsx bench/instructions.ts [--mode stateless|session] [--warmup N] [--requests N]
 * [--concurrency C] [--sequential] label=path/to/compiled/target.js …`
 * e.g. `old=/tmp/old/bench/.out/bench/targets/oursHttp.js new=bench/.out/bench/targets/oursHttp.js`.
 * Targets run side by side unless `--sequential` (counts do not depend on it; wall time does).
 *
 * @module
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HttpConnection } from './lib/httpClient.js';
import { stop, waitForLine } from './lib/proc.js';
import { echoCall, httpHeaders, INITIALIZED, initializeCall, looksLikeEcho } from './lib/wire.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? (argv[i + 1] as string) : fallback;
};
const mode = option('--mode', 'stateless') === 'session' ? 'session' : 'stateless';
const warmup = Number(option('--warmup', '15000'));
const requests = Number(option('--requests', '2000'));
const concurrency = Number(option('--concurrency', '32'));
const targets = argv.filter((a) => a.includes('=')).map((a) => ({ label: a.slice(0, a.indexOf('=')), entry: resolve(a.slice(a.indexOf('=') + 1)) }));
if (targets.length === 0) {
  process.stderr.write('usage: tsx bench/instructions.ts [--mode stateless|session] [--warmup N] [--requests N] label=target.js …\n');
  process.exit(2);
}

const PATH = '/mcp';

/** Sends `count` echo calls over `conns`, one in flight per connection, checking each answer. */
async function drive(conns: HttpConnection[], headers: Record<string, string>[], count: number): Promise<void> {
  let left = count;
  let id = 1;
  await Promise.all(
    conns.map(async (conn, i) => {
      while (left-- > 0) {
        const answer = await conn.request('POST', PATH, headers[i] as Record<string, string>, echoCall(id++, mode === 'stateless'));
        if (answer.status !== 200 || !looksLikeEcho(answer.body)) throw new Error(`unexpected answer ${answer.status}: ${answer.body.slice(0, 200)}`);
      }
    }),
  );
}

/** Instructions per request of one target (callgrind's `totals` of the measured dump ÷ requests). */
async function count(entry: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-instr-'));
  const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${dir}/cg.%p`, process.execPath, entry, '--mode', mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  try {
    const port = Number((await waitForLine(child, /LISTENING (\d+)/, 600_000))[1]);
    const conns = await Promise.all(Array.from({ length: concurrency }, () => HttpConnection.open('127.0.0.1', port)));
    const sids: (string | undefined)[] = [];
    for (const conn of conns) {
      if (mode === 'stateless') continue;
      const init = await conn.request('POST', PATH, httpHeaders('initialize', false), initializeCall(0));
      const sid = init.headers.get('mcp-session-id');
      if (sid === undefined) throw new Error(`initialize failed: ${init.status}`);
      await conn.request('POST', PATH, httpHeaders('notifications/initialized', false, sid), INITIALIZED);
      sids.push(sid);
    }
    const headers = conns.map((_, i) => httpHeaders('tools/call', mode === 'stateless', sids[i]));
    await drive(conns, headers, warmup);
    execFileSync('callgrind_control', ['--dump=warm', String(child.pid)], { stdio: 'ignore' });
    await drive(conns, headers, requests);
    execFileSync('callgrind_control', ['--dump=measured', String(child.pid)], { stdio: 'ignore' });
    for (const conn of conns) conn.close();
    const measured = readdirSync(dir).find((f) => f.endsWith('.2'));
    if (measured === undefined) throw new Error(`no second callgrind dump in ${dir}`);
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, measured), 'utf8'));
    if (totals === null) throw new Error(`no totals in ${join(dir, measured)}`);
    return Number(totals[1]) / requests;
  } finally {
    await stop(child);
  }
}

process.stdout.write(`callgrind, ${mode}, c=${concurrency}: ${warmup} warm-up requests, then ${requests} counted\n`);
const run = async (t: { label: string; entry: string }): Promise<void> => {
  const perRequest = await count(t.entry);
  process.stdout.write(`${t.label.padEnd(12)} ${Math.round(perRequest).toLocaleString('en-US')} instructions/request\n`);
};
if (argv.includes('--sequential')) for (const t of targets) await run(t);
else await Promise.all(targets.map(run));
