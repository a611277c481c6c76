/**
 * `switchboard gateway`: the declaration of the command (its options and help). The gateway it
 * runs is assembled by `gatewayCommand` with the parsed options.
 *
 * @module
 */
import { defineCommand, noPositionals } from '../command.js';

/** `switchboard gateway`. */
export const command = defineCommand({
  name: 'gateway',
  summary: 'serve many MCP servers behind one guarded endpoint (HTTP or stdio)',
  usage: ['[--config FILE] [--port N] [--host H] [--stdio] [--yes] [--no-auth] [--telemetry FILE]'],
  description: `Runs the host on a switchboard.json and serves every configured MCP server behind one
guarded endpoint (namespaced tools, prompts, resources; the interceptor chain).`,
  options: {
    config: { type: 'string', value: 'FILE', description: 'the config', default: './switchboard.json, else the per-user one' },
    port: { type: 'string', value: 'N', description: 'HTTP port (0 = a free one)', default: "the config's gateway.port, 8765" },
    host: { type: 'string', value: 'H', description: 'interface to bind', default: "the config's gateway.host, 127.0.0.1" },
    stdio: { type: 'boolean', description: 'serve one client over stdin/stdout instead of HTTP' },
    yes: { type: 'boolean', description: "approve every stdio server's launch for this run (recorded), except one flagged as a look-alike package" },
    'no-auth': { type: 'boolean', description: 'serve HTTP without a bearer token (loopback only)' },
    'log-level': { type: 'string', value: 'L', description: 'debug | info | warn | error (logs go to stderr)', default: 'info' },
    'log-format': {
      type: 'string',
      value: 'F',
      description: 'text (a line for a person: "warn [server] message key=value") | json (one JSON object a line, for a log collector); every stderr line takes it, each about a server names its id',
      default: 'the SWITCHBOARD_LOG_FORMAT variable, else text',
    },
    telemetry: {
      type: 'string',
      value: 'F',
      description: 'import the ES module F first: it registers an OpenTelemetry SDK (spans, metrics, and audit records as log records when it registers a LoggerProvider); without one, telemetry is a no-op',
    },
    store: {
      type: 'string',
      value: 'URL',
      description: 'postgres://...: pins, the audit log, consent approvals and queue, and downstream OAuth tokens in PostgreSQL, shared by several instances',
      default: "the config's switchboard.store, else SQLite and files",
    },
    'publish-policy': {
      type: 'boolean',
      description: "with --store: publish this config's policy to the cluster at start (otherwise an instance runs the cluster's newest policy, and publishes its own only when its config's policy changes while it runs)",
    },
    cache: {
      type: 'string',
      value: 'URL',
      description: "redis://...: rate limits, concurrency caps and the policy's taint in Redis, shared by several instances; also the DPoP replay cache and nonces (gateway.auth.oauth.dpop)",
      default: "the config's switchboard.cache, else memory",
    },
  },
  notes: `State (the bearer token, name assignments, launch approvals, OAuth tokens of remote
servers, the pins in pins.db, the audit log in audit.db unless switchboard.audit is
false, the consent admin token and kept approvals in consent.db) lives in the config's stateDir
(default .switchboard next to the config).
A remote server with an "oauth" section needs a sign-in first: switchboard login <server>.
With gateway.auth { "oauth": … } clients need access tokens from that issuer instead.
Every server's definitions are pinned on first use; a changed one is quarantined until you
approve it with \`switchboard pins approve\` (see \`switchboard pins --help\`).
A call that needs a person's consent (switchboard.consent) is asked on this terminal (when it
is one) and queued for the admin API under /consent/ (admin token in <stateDir>/admin-token;
over --stdio the API gets its own loopback port, written to <stateDir>/consent-url); answer
with \`switchboard consent list|approve|deny\`.`,
  async run(parsed) {
    noPositionals(parsed);
    const { gatewayCommand } = await import('../gatewayCommand.js');
    await gatewayCommand(parsed.options);
  },
});
