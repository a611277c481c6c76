/**
 * Consent shared by every gateway instance, in PostgreSQL: the kept approvals
 * ({@link PgGrantStore}, table `consent_grants`) and the waiting requests with their answers
 * ({@link PgConsentRequests}, table `consent_requests`, the `SharedConsentRequests` a
 * `ConsentQueue` takes).
 *
 * - **Grants** are read on every check (no cache), so a revocation on one instance applies on
 *   all at once; expired ones are deleted as they are read. Unlike the SQLite file, grants
 *   bound to a session are kept: 2025-11-25 sessions outlive an instance in a cluster.
 * - **Requests.** The instance where a call waits inserts the request; any instance records an
 *   answer with one `UPDATE … WHERE answer IS NULL`, so the first answer wins and a second is
 *   refused. Each change sends `NOTIFY switchboard_consent` (delivered at commit) with the
 *   schema, the change and the request id; every instance's queue then reads what changed. A
 *   request past its `expiresAt` no longer counts as waiting and cannot be answered; old rows
 *   are deleted as new ones arrive.
 * - **A dead instance's requests.** Each row names the instance whose call waits on it by that
 *   instance's `application_name` (give every instance its own, as `switchboard gateway` does),
 *   and a request counts as waiting only while a session with that name is connected
 *   (`pg_stat_activity`). An instance that dies loses its sessions at once (the server sees the
 *   socket close; TCP keep-alive bounds a silent network loss), so its requests stop being
 *   listed and an answer to one is refused with {@link ConsentCallGoneError} ("the call that
 *   asked is gone") instead of waiting for the request to expire. No NOTIFY comes from a dead
 *   instance, so each watching instance looks for such requests every `livenessMs` (default 2 s)
 *   and reports them as `gone` (and as `request` again should the instance's sessions return).
 *
 * @see https://www.postgresql.org/docs/current/sql-notify.html
 * @see https://www.postgresql.org/docs/current/monitoring-stats.html#MONITORING-PG-STAT-ACTIVITY-VIEW
 * @module
 */
import type { ConsentGrant, ConsentGrantStore } from '../../host/consent/consentGrants.js';
import type { ConsentAnswer, ConsentRequest } from '../../host/consent/consentTypes.js';
import { ConsentCallGoneError, storedAnswer, type SharedConsentChange, type SharedConsentRequests } from '../../host/consent/sharedConsent.js';
import { grantFromRecord } from '../grantRecord.js';
import type { PgClient, PgDatabase } from './pgDatabase.js';

const CHANNEL = 'switchboard_consent';
/** How long a finished or expired request row is kept before it is deleted (ms). */
const KEEP_MS = 10 * 60_000;
/** True while the instance that inserted row `r` has a session connected. */
const OWNER_ALIVE = 'EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = r.instance AND a.datname = current_database())';

/** Options of {@link PgConsentRequests}. */
export interface PgConsentRequestsOptions {
  /** The clock (tests). Default `Date.now`. */
  readonly now?: () => number;
  /** How often a watching instance looks for the waiting requests of instances that died, in ms. Default 2000. */
  readonly livenessMs?: number;
}

/** Kept consent approvals in PostgreSQL. */
export class PgGrantStore implements ConsentGrantStore {
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db;
  }

  /** Keeps `grant` (replacing one with the same id). */
  async add(grant: ConsentGrant): Promise<void> {
    const expires = grant.expiresAt === undefined ? null : Date.parse(grant.expiresAt);
    await this.#db.query('keeping a consent approval', 'INSERT INTO consent_grants (id, record, expires_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at', [
      grant.id,
      JSON.stringify(grant),
      expires,
    ]);
  }

  /** The grants not expired at `now`; expired ones are deleted, malformed ones skipped. */
  async list(now: number): Promise<readonly ConsentGrant[]> {
    const rows = await this.#db.transaction('reading consent approvals', async (client) => {
      await client.query('DELETE FROM consent_grants WHERE expires_at IS NOT NULL AND expires_at <= $1', [now]);
      return (await client.query<{ record: unknown }>('SELECT record FROM consent_grants ORDER BY seq')).rows;
    });
    const out: ConsentGrant[] = [];
    for (const row of rows) {
      const grant = grantFromRecord(row.record);
      if (grant !== undefined) out.push(grant);
    }
    return out;
  }

  /** Removes grant `id`. */
  async revoke(id: string): Promise<boolean> {
    return (await this.#db.query('revoking a consent approval', 'DELETE FROM consent_grants WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  /** Nothing to close: the connection belongs to the {@link PgDatabase}. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The waiting consent requests of every instance, in PostgreSQL (see the module comment). */
export class PgConsentRequests implements SharedConsentRequests {
  readonly #db: PgDatabase;
  readonly #now: () => number;
  readonly #livenessMs: number;

  constructor(db: PgDatabase, options: PgConsentRequestsOptions = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#livenessMs = options.livenessMs ?? 2000;
  }

  /** Inserts a request waiting here (owned by this instance's `application_name`) and notifies the others. */
  async publish(request: ConsentRequest): Promise<void> {
    const expires = Date.parse(request.expiresAt);
    await this.#db.transaction('sharing a consent request', async (client) => {
      await client.query('DELETE FROM consent_requests WHERE expires_at < $1', [this.#now() - KEEP_MS]);
      await client.query("INSERT INTO consent_requests (id, instance, request, expires_at) VALUES ($1, current_setting('application_name'), $2, $3) ON CONFLICT (id) DO NOTHING", [
        request.id,
        JSON.stringify(request),
        Number.isFinite(expires) ? expires : this.#now(),
      ]);
      await this.#notify(client, 'request', request.id);
    });
  }

  /** Records the first answer; false when the request no longer waits; {@link ConsentCallGoneError} when its instance died. */
  async answer(id: string, answer: ConsentAnswer): Promise<boolean> {
    return this.#db.transaction('recording a consent answer', async (client) => {
      const now = this.#now();
      const won = await client.query(`UPDATE consent_requests r SET answer = $2 WHERE id = $1 AND answer IS NULL AND expires_at > $3 AND ${OWNER_ALIVE} RETURNING id`, [id, JSON.stringify(answer), now]);
      if (won.rowCount === 0) {
        const orphan = await client.query<{ instance: string }>('SELECT instance FROM consent_requests r WHERE id = $1 AND answer IS NULL AND expires_at > $2', [id, now]);
        const instance = orphan.rows[0]?.instance;
        if (instance !== undefined) throw new ConsentCallGoneError(id, instance);
        return false;
      }
      await this.#notify(client, 'answered', id);
      return true;
    });
  }

  /** The recorded answer of `id` (a malformed one reads as a denial). */
  async answerOf(id: string): Promise<ConsentAnswer | undefined> {
    const rows = await this.#db.query<{ answer: unknown }>('reading a consent answer', 'SELECT answer FROM consent_requests WHERE id = $1', [id]);
    const answer = rows[0]?.answer;
    return answer === undefined || answer === null ? undefined : storedAnswer(answer);
  }

  /** Deletes request `id` and notifies the others. */
  async withdraw(id: string): Promise<void> {
    await this.#db.transaction('withdrawing a consent request', async (client) => {
      const gone = await client.query('DELETE FROM consent_requests WHERE id = $1 RETURNING id', [id]);
      if (gone.rowCount !== 0) await this.#notify(client, 'closed', id);
    });
  }

  /** The requests not answered and not expired at `now` whose instance is alive, oldest first; malformed rows are skipped. */
  async pending(now: number): Promise<readonly ConsentRequest[]> {
    const rows = await this.#db.query<{ request: unknown }>('reading consent requests', `SELECT request FROM consent_requests r WHERE answer IS NULL AND expires_at > $1 AND ${OWNER_ALIVE} ORDER BY seq`, [now]);
    return rows.map((r) => r.request).filter(isRequest);
  }

  /**
   * Follows `NOTIFY switchboard_consent` of this schema; `onResync` each time LISTEN is (again)
   * in place; every `livenessMs`, `gone` for each waiting request whose instance died.
   */
  watch(onChange: (change: SharedConsentChange) => void, onResync: () => void): () => void {
    const prefix = `${this.#db.schema}|`;
    const stop = this.#db.listen(
      CHANNEL,
      (payload) => {
        if (!payload.startsWith(prefix)) return;
        const [type, ...rest] = payload.slice(prefix.length).split('|');
        if (type === 'request' || type === 'answered' || type === 'closed') onChange({ type, id: rest.join('|') });
      },
      () => undefined,
      onResync,
    );
    const reported = new Set<string>();
    let sweeping = false;
    const timer = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      void this.#orphans()
        .then((orphans) => {
          for (const id of orphans) if (!reported.has(id)) onChange({ type: 'gone', id });
          // Back (its instance's sessions returned), answered or expired: listed as it now is.
          for (const id of reported) if (!orphans.has(id)) onChange({ type: 'request', id });
          reported.clear();
          for (const id of orphans) reported.add(id);
        })
        // Unreachable: the next sweep tries again (answers fail closed meanwhile).
        .catch(() => undefined)
        .finally(() => (sweeping = false));
    }, this.#livenessMs);
    timer.unref?.();
    return () => {
      clearInterval(timer);
      stop();
    };
  }

  /** The ids of the waiting requests whose instance has no session any more. */
  async #orphans(): Promise<Set<string>> {
    const rows = await this.#db.query<{ id: string }>('looking for consent requests of stopped instances', `SELECT id FROM consent_requests r WHERE answer IS NULL AND expires_at > $1 AND NOT ${OWNER_ALIVE}`, [this.#now()]);
    return new Set(rows.map((r) => r.id));
  }

  async #notify(client: PgClient, type: SharedConsentChange['type'], id: string): Promise<void> {
    await client.query('SELECT pg_notify($1, $2)', [CHANNEL, `${this.#db.schema}|${type}|${id}`]);
  }
}

function isRequest(value: unknown): value is ConsentRequest {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['id'] === 'string' && typeof r['createdAt'] === 'string' && typeof r['expiresAt'] === 'string' && typeof r['binding'] === 'object' && r['binding'] !== null;
}
