/**
 * `npm run bench:stores`: the added cost per call of the stores several gateway instances
 * share, against the embedded ones, on this machine's PostgreSQL and Redis:
 *
 * - audit append (one per call; the answer waits for it to be durable): SQLite (WAL,
 *   `synchronous = FULL`) against PostgreSQL (one chain, group commit), one caller at a time
 *   (the latency a call pays) and `--concurrency` callers at once (throughput, records per
 *   transaction);
 * - rate-limit check (one per guarded call): the in-memory bucket against the Redis Lua bucket;
 * - concurrency slot (acquire + release): memory against Redis leases;
 * - MRTR single-use nonce: memory against Redis `SET NX PXAT`.
 *
 * Each figure is the median over the run (latency) or operations per second, with the ratio
 * shared / embedded. Flags: `--ops N` (operations per lane, default 2000), `--concurrency N`
 * (default 64), `--json`. Connects as the tests do (`SWITCHBOARD_TEST_POSTGRES`,
 * `SWITCHBOARD_TEST_REDIS`), in a schema and key prefix of its own, dropped at the end.
 *
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry, AuditLog } from '../src/host/audit.js';
import { MemoryConcurrencyStore, MemoryRateLimitStore, type ConcurrencyStore, type RateLimitStore } from '../src/host/guards.js';
import { MemoryNonceStore, type NonceStore } from '../src/server/requestState.js';
import { PgAuditLog } from '../src/store/postgres/pgAuditLog.js';
import { PgDatabase } from '../src/store/postgres/pgDatabase.js';
import { RedisCache } from '../src/store/redis/redisCache.js';
import { RedisConcurrencyStore, RedisRateLimitStore } from '../src/store/redis/redisRateLimitStore.js';
import { RedisNonceStore } from '../src/store/redis/redisSingleUse.js';
import { SqliteAuditLog } from '../src/store/sqliteAudit.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const OPS = option('--ops', 2000);
const CONCURRENCY = option('--concurrency', 64);
const POSTGRES = process.env['SWITCHBOARD_TEST_POSTGRES'] ?? `postgres://${userInfo().username}@127.0.0.1:5432/switchboard_test`;
const REDIS = process.env['SWITCHBOARD_TEST_REDIS'] ?? 'redis://127.0.0.1:6379';

interface Lane {
  readonly p50Us: number;
  readonly p99Us: number;
  readonly opsPerSec: number;
}

/** `ops` calls of `op`, `concurrency` at a time: per-call latency percentiles and throughput. */
async function lane(op: (i: number) => unknown, ops: number, concurrency: number): Promise<Lane> {
  for (let i = 0; i < Math.min(100, ops); i++) await op(-1 - i); // warm-up
  const times: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) {
        const i = next++;
        const t = performance.now();
        await op(i);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = performance.now() - start;
  times.sort((a, b) => a - b);
  const at = (q: number): number => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 1000);
  return { p50Us: at(0.5), p99Us: at(0.99), opsPerSec: Math.round((ops / elapsed) * 1000) };
}

const entry = (i: number): AuditEntry => ({ time: new Date().toISOString(), kind: 'request', method: 'tools/call', principal: `agent-${i % 100}`, server: 'fs', name: 'read_file', arguments: { path: `/tmp/${i}` }, decisions: [{ interceptor: 'guard', outcome: 'allow' }], outcome: 'ok', latencyMs: 1.5 });

interface Pair {
  readonly what: string;
  readonly embedded: Lane;
  readonly shared: Lane;
  readonly extra?: string;
}

const results: Pair[] = [];
/** Records per transaction in the measured part (the warm-up appends one at a time). */
const perCommit = (commits: number): string => (OPS / Math.max(1, commits - Math.min(100, OPS))).toFixed(1);
const dir = mkdtempSync(join(tmpdir(), 'sb-bench-stores-'));
const schema = `bench_${process.pid}`;
const prefix = `sbbench:${process.pid}:`;
const db = await PgDatabase.open(POSTGRES, { schema });
const cache = await RedisCache.open(REDIS, { prefix });
try {
  for (const concurrency of [1, CONCURRENCY]) {
    const sqlite = SqliteAuditLog.open(join(dir, `audit-${concurrency}.db`));
    const pg = new PgAuditLog(db);
    const append = (log: AuditLog) => (i: number) => log.append(entry(i));
    const embedded = await lane(append(sqlite), OPS, concurrency);
    const sqliteCommits = sqlite.commits;
    const shared = await lane(append(pg), OPS, concurrency);
    results.push({ what: `audit append, ${concurrency} at a time (SQLite -> PostgreSQL)`, embedded, shared, extra: `records per transaction: SQLite ${perCommit(sqliteCommits)}, PostgreSQL ${perCommit(pg.commits)}` });
    await sqlite.close();
    await pg.close();
  }
  const rule = { by: ['principal' as const], max: 1_000_000_000, perMs: 1000 };
  const take = (store: RateLimitStore) => (i: number) => store.take(`principal=agent-${i % 100}`, rule, Date.now());
  const slot = (store: ConcurrencyStore) => async (i: number) => {
    const grant = await store.acquire(`principal=agent-${i % 100}`, 1_000_000, Date.now());
    if (grant.allowed) await grant.release();
  };
  const nonce = (store: NonceStore) => (i: number) => store.consume(`n-${i}-${Math.random()}`, Date.now() + 60_000);
  for (const concurrency of [1, CONCURRENCY]) {
    results.push({ what: `rate-limit check, ${concurrency} at a time (memory -> Redis)`, embedded: await lane(take(new MemoryRateLimitStore()), OPS, concurrency), shared: await lane(take(new RedisRateLimitStore(cache)), OPS, concurrency) });
  }
  results.push({ what: `concurrency slot acquire+release, ${CONCURRENCY} at a time (memory -> Redis)`, embedded: await lane(slot(new MemoryConcurrencyStore()), OPS, CONCURRENCY), shared: await lane(slot(new RedisConcurrencyStore(cache)), OPS, CONCURRENCY) });
  results.push({ what: `MRTR nonce, ${CONCURRENCY} at a time (memory -> Redis)`, embedded: await lane(nonce(new MemoryNonceStore()), OPS, CONCURRENCY), shared: await lane(nonce(new RedisNonceStore(cache)), OPS, CONCURRENCY) });
} finally {
  await db.query('dropping the bench schema', `DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
  await cache.deleteAll();
  await db.close();
  await cache.close();
  rmSync(dir, { recursive: true, force: true });
}

if (argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ ops: OPS, concurrency: CONCURRENCY, results }, null, 2)}\n`);
} else {
  const us = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(1)} ms` : `${n} µs`);
  for (const r of results) {
    process.stdout.write(`${r.what}\n`);
    process.stdout.write(`  embedded: p50 ${us(r.embedded.p50Us)}, p99 ${us(r.embedded.p99Us)}, ${r.embedded.opsPerSec}/s\n`);
    process.stdout.write(`  shared:   p50 ${us(r.shared.p50Us)}, p99 ${us(r.shared.p99Us)}, ${r.shared.opsPerSec}/s\n`);
    process.stdout.write(`  added per call (p50): ${us(r.shared.p50Us - r.embedded.p50Us)}; ratio shared/embedded: latency x${(r.shared.p50Us / Math.max(1, r.embedded.p50Us)).toFixed(1)}, throughput x${(r.shared.opsPerSec / Math.max(1, r.embedded.opsPerSec)).toFixed(3)}${r.extra !== undefined ? `; ${r.extra}` : ''}\n`);
  }
}
