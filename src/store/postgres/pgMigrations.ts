/**
 * The schema of the PostgreSQL stores, as numbered migrations applied in order on open (see
 * `pgDatabase.ts`). Never edit a released migration: append a new one.
 *
 * @module
 */

/** One schema change. Its version is its position in {@link MIGRATIONS}, from 1. */
export interface PgMigration {
  readonly name: string;
  readonly sql: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: readonly PgMigration[] = [
  {
    name: 'pins, audit chain, OAuth tokens',
    sql: `
CREATE TABLE pin_servers (
  identity text PRIMARY KEY,
  alias text NOT NULL,
  record jsonb NOT NULL,
  updated_at bigint NOT NULL
);
CREATE TABLE pin_items (
  identity text NOT NULL REFERENCES pin_servers(identity) ON DELETE CASCADE,
  item_key text NOT NULL,
  state text NOT NULL CHECK (state IN ('approved', 'pending')),
  record jsonb NOT NULL,
  PRIMARY KEY (identity, item_key, state)
);
CREATE TABLE audit (
  seq bigint PRIMARY KEY,
  line text NOT NULL,
  hash text NOT NULL
);
CREATE TABLE audit_head (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  seq bigint NOT NULL,
  hash text NOT NULL
);
INSERT INTO audit_head (seq, hash) VALUES (0, 'sha256:' || repeat('0', 64));
CREATE TABLE oauth_servers (
  identity text PRIMARY KEY,
  record jsonb NOT NULL
);
`,
  },
  {
    name: 'consent grants and the shared consent queue',
    sql: `
CREATE TABLE consent_grants (
  id text PRIMARY KEY,
  record jsonb NOT NULL,
  expires_at bigint,
  seq bigserial
);
CREATE TABLE consent_requests (
  id text PRIMARY KEY,
  instance text NOT NULL,
  request jsonb NOT NULL,
  expires_at bigint NOT NULL,
  answer jsonb,
  seq bigserial
);
CREATE INDEX consent_requests_waiting ON consent_requests (seq) WHERE answer IS NULL;
`,
  },
  {
    name: 'keys shared by every instance (the MRTR requestState sealing key)',
    sql: `
CREATE TABLE shared_keys (
  name text PRIMARY KEY,
  value bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    name: 'the cluster policy (one versioned row)',
    sql: `
CREATE TABLE cluster_policy (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint NOT NULL,
  digest text NOT NULL,
  document jsonb NOT NULL,
  instance text NOT NULL,
  published_at bigint NOT NULL
);
`,
  },
  {
    name: 'compact audit rows: the arguments digest as bytes, shared decision texts once (the hashed text unchanged)',
    sql: `
ALTER TABLE audit ADD COLUMN digest bytea, ADD COLUMN decisions bigint;
CREATE TABLE audit_decisions (
  id bigserial PRIMARY KEY,
  text text NOT NULL UNIQUE
);
`,
  },
  {
    name: 'the audit prune marker (records archived and removed from the live log)',
    sql: `
CREATE TABLE audit_pruned (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  seq bigint NOT NULL,
  hash text NOT NULL
);
`,
  },
  {
    name: 'per-user downstream connections (sealed tokens) and pending sign-ins (sealed, keyed by the hashed state)',
    sql: `
CREATE TABLE connections (
  principal text NOT NULL,
  server text NOT NULL,
  server_id text NOT NULL,
  tenant text,
  mode text NOT NULL CHECK (mode IN ('per-user', 'token-exchange')),
  summary jsonb NOT NULL,
  sealed bytea NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (principal, server)
);
CREATE INDEX connections_server ON connections (server);
CREATE TABLE pending_sign_ins (
  state_hash text PRIMARY KEY,
  sealed bytea NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX pending_sign_ins_expiry ON pending_sign_ins (expires_at);
`,
  },
  {
    name: 'the gateway\'s client registrations at authorization servers (sealed, per issuer and redirect URI); connections by tenant',
    sql: `
CREATE TABLE client_registrations (
  issuer text NOT NULL,
  redirect_uri text NOT NULL,
  client_id text NOT NULL,
  sealed bytea NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (issuer, redirect_uri)
);
CREATE INDEX connections_tenant ON connections (tenant);
`,
  },
];
