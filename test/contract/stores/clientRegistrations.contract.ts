/**
 * The contract of the gateway's client registrations in the connection store
 * (`ConnectionStore.registerOnce`), run by `connectionStore.test.ts` against SQLite (two stores on
 * one file) and PostgreSQL (two pools on one schema): one registration per (issuer, redirect URI)
 * shared by every instance, concurrent first registrations converging on one (PostgreSQL: one
 * registration at all), an expired secret replaced, and the attacks on the data at rest (a flipped
 * byte, a row moved under another authorization server, another deployment's key).
 *
 * @see https://www.rfc-editor.org/rfc/rfc7591
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ClientRegistration } from '../../../src/auth/client/tokenStore.js';
import type { ConnectionStore, RegistrationKey } from '../../../src/host/connections.js';
import { ConnectionSealError } from '../../../src/store/connectionSealer.js';

const T = { timeout: 20_000 };

/** Ways into the raw `client_registrations` rows of one fresh backend. */
export interface RegistrationBackend {
  instance(key?: Uint8Array): Promise<ConnectionStore>;
  /** Every byte of the registrations table, as text. */
  dump(): Promise<string>;
  /** Flips one byte of the sealed registration of `key`, `offsetFromEnd` from the end. */
  flipByte(key: RegistrationKey, offsetFromEnd: number): Promise<void>;
  /** Copies the sealed registration (and client id) of `from` onto the row of `to`. */
  copySealed(from: RegistrationKey, to: RegistrationKey): Promise<void>;
  /** How many registration rows there are. */
  rows(): Promise<number>;
  /** Whether concurrent first registrations on two instances run one registration (a lock), not only converge. */
  readonly locks: boolean;
}

const AS = 'https://as.example.com';
const KEY: RegistrationKey = { issuer: AS, redirectUri: 'https://gw.example.com/oauth/callback' };

/** A dynamic registration with a recognisable secret. */
function registration(tag: string, extra: Partial<ClientRegistration> = {}): ClientRegistration {
  return { issuer: AS, clientId: `client-${tag}-${randomBytes(4).toString('hex')}`, clientSecret: `SECRET-${tag}-${randomBytes(8).toString('hex')}`, tokenEndpointAuthMethod: 'client_secret_basic', source: 'dcr', ...extra };
}

/** A registration function that counts its calls and waits for `release()` (all of them at once). */
function heldRegistration(): { readonly register: () => Promise<ClientRegistration>; release(): void; runs(): number } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let runs = 0;
  return {
    register: async () => {
      const mine = registration(`run${++runs}`);
      await gate;
      return mine;
    },
    release: () => release(),
    runs: () => runs,
  };
}

const sealError = (reason: string) => (error: unknown) => error instanceof ConnectionSealError && error.reason === reason;
const never = (): Promise<ClientRegistration> => Promise.reject(new Error('must not register'));

/** Runs the contract. */
export function clientRegistrationContract(name: string, backend: () => Promise<RegistrationBackend>): void {
  describe(`client registrations in the connection store: ${name}`, () => {
    it('registers once; another instance (a restarted gateway) uses the stored one without registering', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const first = registration('a');
      assert.deepEqual(await one.registerOnce(KEY, () => Promise.resolve(first)), first);
      assert.deepEqual(await two.registerOnce(KEY, never), first);
      assert.deepEqual(await one.registerOnce(KEY, never), first);
      // Another redirect URI (a changed public URL) or another authorization server is another registration.
      const other = registration('b');
      assert.deepEqual(await two.registerOnce({ ...KEY, redirectUri: 'https://proxy.example.com/oauth/callback' }, () => Promise.resolve(other)), other);
      assert.equal(await b.rows(), 2);
    });

    it('registrations(issuer) lists every stored registration at that issuer (one per redirect URI), oldest first, and no other issuer\'s', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const first = registration('a');
      const second = registration('b');
      await one.registerOnce(KEY, () => Promise.resolve(first));
      await one.registerOnce({ ...KEY, redirectUri: 'https://proxy.example.com/oauth/callback' }, () => Promise.resolve(second));
      assert.deepEqual((await two.registrations(AS)).map((r) => r.clientId).sort(), [first.clientId, second.clientId].sort());
      assert.deepEqual(await two.registrations('https://other-as.example.com'), []);
    });

    it('concurrent first registrations on two instances converge on one stored registration, used by all (with a lock: registered once)', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const held = heldRegistration();
      const calls = [...Array(10).keys()].map((i) => (i % 2 === 0 ? one : two).registerOnce(KEY, held.register));
      // Let every instance reach its registration (or its wait on the lock) before any finishes.
      await new Promise((resolve) => setTimeout(resolve, 100));
      held.release();
      const results = await Promise.all(calls);
      const stored = await two.registerOnce(KEY, never);
      for (const r of results) assert.equal(r.clientId, stored.clientId, 'every caller uses the stored registration');
      assert.equal(await b.rows(), 1);
      if (b.locks) assert.equal(held.runs(), 1, `registered ${held.runs()} times`);
      else assert.ok(held.runs() <= 2, `one registration per instance at most, not ${held.runs()}`);
    });

    it('a failed registration reaches every waiter, stores nothing, and the next call registers', T, async () => {
      const b = await backend();
      const one = await b.instance();
      let runs = 0;
      const failing = async (): Promise<ClientRegistration> => {
        runs++;
        await Promise.resolve();
        throw new Error('registration refused');
      };
      const settled = await Promise.allSettled([one.registerOnce(KEY, failing), one.registerOnce(KEY, failing)]);
      assert.equal(runs, 1);
      for (const s of settled) assert.ok(s.status === 'rejected' && (s.reason as Error).message === 'registration refused');
      assert.equal(await b.rows(), 0);
      const next = registration('c');
      assert.deepEqual(await one.registerOnce(KEY, () => Promise.resolve(next)), next);
    });

    it('a registration whose secret expired is replaced by a new one', T, async () => {
      const b = await backend();
      const one = await b.instance();
      const expired = registration('old', { clientSecretExpiresAt: Math.floor(Date.now() / 1000) - 60 });
      await one.registerOnce(KEY, () => Promise.resolve(expired));
      const fresh = registration('new', { clientSecretExpiresAt: 0 });
      assert.deepEqual(await (await b.instance()).registerOnce(KEY, () => Promise.resolve(fresh)), fresh);
      assert.deepEqual(await one.registerOnce(KEY, never), fresh);
      assert.equal(await b.rows(), 1);
    });

    it('forgets a registration only while it still names the forgotten client; the next call registers again', T, async () => {
      const b = await backend();
      const [one, two] = [await b.instance(), await b.instance()];
      const first = await one.registerOnce(KEY, () => Promise.resolve(registration('gone')));
      await two.forgetRegistration(KEY, 'some-other-client');
      assert.deepEqual(await two.registerOnce(KEY, never), first, 'another client id forgets nothing');
      await two.forgetRegistration(KEY, first.clientId);
      assert.equal(await b.rows(), 0);
      const next = registration('again');
      assert.deepEqual(await one.registerOnce(KEY, () => Promise.resolve(next)), next);
    });

    it('database-dump-reveals-no-client-secret: the secret is sealed; the client id is in the clear', T, async () => {
      const b = await backend();
      const reg = registration('dump');
      await (await b.instance()).registerOnce(KEY, () => Promise.resolve(reg));
      const dump = await b.dump();
      assert.ok(!dump.includes(reg.clientSecret as string), 'the client secret is not in the rows');
      assert.ok(dump.includes(reg.clientId));
    });

    it('tampered-registration-secret: a flipped byte is refused (typed), never another secret, and nothing is registered over it', T, async () => {
      const b = await backend();
      const one = await b.instance();
      await one.registerOnce(KEY, () => Promise.resolve(registration('t')));
      await b.flipByte(KEY, 20);
      await assert.rejects((await b.instance()).registerOnce(KEY, never), sealError('tampered'));
      await assert.rejects(one.registerOnce(KEY, never), sealError('tampered'));
    });

    it('registration-swap-to-another-authorization-server: a sealed registration moved under another issuer does not open', T, async () => {
      const b = await backend();
      const one = await b.instance();
      const victim = { issuer: 'https://victim-as.example.com', redirectUri: KEY.redirectUri };
      await one.registerOnce(KEY, () => Promise.resolve(registration('attacker')));
      await one.registerOnce(victim, () => Promise.resolve({ ...registration('victim'), issuer: victim.issuer }));
      await b.copySealed(KEY, victim);
      await assert.rejects(one.registerOnce(victim, never), sealError('tampered'));
    });

    it('wrong-key: an instance with another deployment\'s key gets a typed error, no secret', T, async () => {
      const b = await backend();
      const reg = registration('k');
      await (await b.instance()).registerOnce(KEY, () => Promise.resolve(reg));
      const error = await (await b.instance(randomBytes(32))).registerOnce(KEY, never).then(
        () => assert.fail('opened under the wrong key'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ConnectionSealError && error.reason === 'wrong-key', String(error));
      assert.ok(!error.message.includes(reg.clientSecret as string));
    });
  });
}
