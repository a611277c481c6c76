// The shared stores when PostgreSQL or Redis goes away: every operation fails closed with
// ERR_MCP_STORE_UNAVAILABLE (nothing is silently allowed), and service resumes by itself once
// the server is back. "Down" is a TCP gate between the store and the real server (cut and
// refused, then let through again) or a killed server-side connection (pg_terminate_backend,
// CLIENT KILL). Also: migrations on concurrent starts, leases of a killed instance, the
// audit chain's head.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, describe, it } from 'node:test';
import { auditInterceptor } from '../../../src/host/audit.js';
import { guardInterceptor } from '../../../src/host/guards.js';
import { DeniedError, type InterceptContext } from '../../../src/host/interceptors.js';
import { PgAuditLog } from '../../../src/store/postgres/pgAuditLog.js';
import { PgDatabase } from '../../../src/store/postgres/pgDatabase.js';
import { MIGRATIONS } from '../../../src/store/postgres/pgMigrations.js';
import { PgPinStore } from '../../../src/store/postgres/pgPinStore.js';
import { RedisCache } from '../../../src/store/redis/redisCache.js';
import { RedisConcurrencyStore, RedisRateLimitStore } from '../../../src/store/redis/redisRateLimitStore.js';
import { isMcpError, McpErrorCode } from '../../../src/util/errors.js';
import { sampleEntry } from './auditLog.contract.js';
import { POSTGRES_URL, REDIS_URL, TcpGate, freshSchema, openTestPostgres, openTestRedis } from './backends.js';

const unavailable = (error: unknown): boolean => isMcpError(error, McpErrorCode.StoreUnavailable);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Retries `fn` until it resolves (each failure must be `accept`ed), at most `ms`. */
async function eventually<T>(fn: () => Promise<T>, accept: (error: unknown) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      assert.ok(accept(error), `an unexpected failure while the store came back: ${String(error)}`);
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const gates: TcpGate[] = [];
after(async () => {
  for (const gate of gates) await gate.close();
});
async function gate(target: string): Promise<TcpGate> {
  const g = new TcpGate(target);
  await g.open();
  gates.push(g);
  return g;
}

const ctx = (): InterceptContext => ({ method: 'tools/call', params: { name: 'ping', arguments: {} }, principal: { id: 'p' }, server: { id: 's' }, exposedName: 'ping', decisions: [], record: () => undefined }) as unknown as InterceptContext;

describe('PostgreSQL down and back', () => {
  it('an unreachable server fails opening with a typed error naming PostgreSQL', async () => {
    const url = new URL(POSTGRES_URL);
    url.hostname = '127.0.0.1';
    url.port = String(await closedPort());
    await assert.rejects(PgDatabase.open(url.toString(), { schema: freshSchema(), connectTimeoutMs: 1000 }), (error: unknown) => unavailable(error) && /PostgreSQL is unavailable/.test((error as Error).message));
  });

  it('while it is down pins and audit fail closed (the audit interceptor withholds the answer, then refuses); when it is back both resume and the record is written', async () => {
    const g = await gate(POSTGRES_URL);
    const db = await openTestPostgres({ url: g.via(POSTGRES_URL), schema: freshSchema() });
    const pins = new PgPinStore(db);
    const audit = new PgAuditLog(db, { retryMs: 50 });
    const interceptor = auditInterceptor(audit);
    assert.equal(await interceptor.intercept(ctx(), async () => 'answer'), 'answer');

    await g.close();
    await assert.rejects(pins.load(), unavailable);
    let ran = 0;
    await assert.rejects(interceptor.intercept(ctx(), async () => (ran++, 'answer')), (error: unknown) => isMcpError(error, McpErrorCode.StoreWriteFailed) && /answer is withheld/.test((error as Error).message));
    assert.equal(ran, 1, 'the call ran; its answer was withheld');
    assert.match(audit.problem ?? '', /PostgreSQL is unavailable/);
    await assert.rejects(interceptor.intercept(ctx(), async () => (ran++, 'answer')), (error: unknown) => error instanceof DeniedError);
    assert.equal(ran, 1, 'no call runs while the audit log cannot write');

    await g.open();
    await eventually(() => pins.load(), unavailable);
    await eventually(async () => assert.equal(audit.problem, undefined), () => true);
    const report = await audit.verify();
    assert.deepEqual({ ok: report.ok, records: report.records }, { ok: true, records: 2 }, 'the withheld call\'s record was written by the retry');
    assert.equal(await interceptor.intercept(ctx(), async () => 'again'), 'again');
    await audit.close();
  });

  it('connections killed on the server (pg_terminate_backend) are replaced by themselves', async () => {
    // Only this store's connections (its own application_name): other test files share the server.
    const victim = `sbtest-victim-${process.pid}-${Date.now()}`;
    const db = await openTestPostgres({ applicationName: victim });
    const pins = new PgPinStore(db);
    await pins.load();
    const killer = await openTestPostgres({ schema: db.schema });
    const killed = await killer.query<{ n: string }>('killing', 'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = $1', [victim]);
    assert.ok(Number(killed[0]?.n) >= 1);
    await eventually(() => pins.load(), unavailable);
  });

  it('four instances starting at once on a fresh schema apply each migration exactly once', async () => {
    const schema = freshSchema();
    const dbs = await Promise.all(Array.from({ length: 4 }, () => openTestPostgres({ schema })));
    for (const db of dbs) assert.deepEqual(await db.migrations(), MIGRATIONS.map((_, i) => i + 1));
  });

  it('a schema migrated by a newer Switchboard is refused, not written to (downgrade)', async () => {
    const db = await openTestPostgres();
    await db.query('faking a newer version', 'INSERT INTO switchboard_migrations (version, name) VALUES ($1, $2)', [MIGRATIONS.length + 1, 'from the future']);
    await assert.rejects(openTestPostgres({ schema: db.schema }), (error: unknown) => isMcpError(error, McpErrorCode.StoreCorrupt) && /newer Switchboard/.test((error as Error).message));
  });

  it('records cut off the end of the audit chain are found (the head row remembers)', async () => {
    const db = await openTestPostgres();
    const audit = new PgAuditLog(db);
    for (let i = 0; i < 3; i++) await audit.append(sampleEntry(i));
    await db.query('truncating', 'DELETE FROM audit WHERE seq = 3');
    const report = await audit.verify();
    assert.equal(report.ok, false);
    assert.match(report.problems.map((p) => p.problem).join('; '), /records at the end were deleted/);
  });
});

describe('Redis down and back', () => {
  it('an unreachable server fails opening with a typed error naming Redis', async () => {
    await assert.rejects(RedisCache.open(`redis://127.0.0.1:${await closedPort()}`, { connectTimeoutMs: 1000 }), (error: unknown) => unavailable(error) && /Redis is unavailable/.test((error as Error).message));
  });

  it('while it is down the rate limit refuses every call (fail closed, the server is never reached); when it is back it resumes', async () => {
    const g = await gate(REDIS_URL);
    const cache = await openTestRedis({ url: g.via(REDIS_URL) });
    const guard = guardInterceptor({ rateLimits: [{ by: ['principal'], max: 100, perMs: 60_000 }], rateLimitStore: new RedisRateLimitStore(cache) });
    assert.equal(await guard.intercept(ctx(), async () => 'ok'), 'ok');
    await g.close();
    let reached = 0;
    await assert.rejects(guard.intercept(ctx(), async () => (reached++, 'ok')), unavailable);
    assert.equal(reached, 0);
    await g.open();
    assert.equal(await eventually(() => guard.intercept(ctx(), async () => 'back'), unavailable), 'back');
  });

  it('a connection killed on the server (CLIENT KILL) is replaced by itself', async () => {
    const cache = await openTestRedis();
    const store = new RedisRateLimitStore(cache);
    const rule = { by: [], max: 10, perMs: 1000 } as const;
    await store.take('k', rule, 0);
    const id = await cache.client.client('ID');
    const admin = await openTestRedis();
    await admin.client.client('KILL', 'ID', String(id));
    assert.equal((await eventually(() => store.take('k', rule, 0), unavailable)).allowed, true);
  });

  it('a killed instance does not leak its concurrency slots: its lease expires', async () => {
    const survivor = await openTestRedis();
    const doomed = await openTestRedis({ prefix: survivor.prefix });
    const leaseMs = 30_000;
    const held = await new RedisConcurrencyStore(doomed, { leaseMs }).acquire('principal=p', 1, 1_000_000);
    assert.equal(held.allowed, true);
    doomed.client.disconnect(); // killed: never releases, never renews
    const store = new RedisConcurrencyStore(survivor, { leaseMs });
    assert.deepEqual(await store.acquire('principal=p', 1, 1_000_000 + leaseMs - 1), { allowed: false, inFlight: 1 });
    assert.equal((await store.acquire('principal=p', 1, 1_000_000 + leaseMs + 1)).allowed, true);
  });
});
