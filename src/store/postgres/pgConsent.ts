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
 *   request past its `expiresAt` no longer counts as waiting and cannot be answered, which also
 *   clears the requests of an instance that died; old rows are deleted as new ones arrive.
 *
 * @see https://www.postgresql.org/docs/current/sql-notify.html
 * @module
 */
import type { ConsentGrant, ConsentGrantStore } from '../../host/consent/consentGrants.js';
import type { ConsentAnswer, ConsentRequest } from '../../host/consent/consentTypes.js';
import { storedAnswer, type SharedConsentChange, type SharedConsentRequests } from '../../host/consent/sharedConsent.js';
import { grantFromRecord } from '../grantRecord.js';
import type { PgClient, PgDatabase } from './pgDatabase.js';

const CHANNEL = 'switchboard_consent';
/** How long a finished or expired request row is kept before it is deleted (ms). */
const KEEP_MS = 10 * 60_000;

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
  readonly #instance: string;
  readonly #now: () => number;

  /** `instance` names this gateway instance in the rows it inserts (diagnostics). */
  constructor(db: PgDatabase, options: { readonly instance?: string; readonly now?: () => number } = {}) {
    this.#db = db;
    this.#instance = options.instance ?? 'gateway';
    this.#now = options.now ?? Date.now;
  }

  /** Inserts a request waiting here and notifies the others. */
  async publish(request: ConsentRequest): Promise<void> {
    const expires = Date.parse(request.expiresAt);
    await this.#db.transaction('sharing a consent request', async (client) => {
      await client.query('DELETE FROM consent_requests WHERE expires_at < $1', [this.#now() - KEEP_MS]);
      await client.query('INSERT INTO consent_requests (id, instance, request, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [
        request.id,
        this.#instance,
        JSON.stringify(request),
        Number.isFinite(expires) ? expires : this.#now(),
      ]);
      await this.#notify(client, 'request', request.id);
    });
  }

  /** Records the first answer; false when the request no longer waits. */
  async answer(id: string, answer: ConsentAnswer): Promise<boolean> {
    return this.#db.transaction('recording a consent answer', async (client) => {
      const won = await client.query('UPDATE consent_requests SET answer = $2 WHERE id = $1 AND answer IS NULL AND expires_at > $3 RETURNING id', [id, JSON.stringify(answer), this.#now()]);
      if (won.rowCount === 0) return false;
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

  /** The requests not answered and not expired at `now`, oldest first; malformed rows are skipped. */
  async pending(now: number): Promise<readonly ConsentRequest[]> {
    const rows = await this.#db.query<{ request: unknown }>('reading consent requests', 'SELECT request FROM consent_requests WHERE answer IS NULL AND expires_at > $1 ORDER BY seq', [now]);
    return rows.map((r) => r.request).filter(isRequest);
  }

  /** Follows `NOTIFY switchboard_consent` of this schema; `onResync` each time LISTEN is (again) in place. */
  watch(onChange: (change: SharedConsentChange) => void, onResync: () => void): () => void {
    const prefix = `${this.#db.schema}|`;
    return this.#db.listen(
      CHANNEL,
      (payload) => {
        if (!payload.startsWith(prefix)) return;
        const [type, ...rest] = payload.slice(prefix.length).split('|');
        if (type === 'request' || type === 'answered' || type === 'closed') onChange({ type, id: rest.join('|') });
      },
      () => undefined,
      onResync,
    );
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
