/**
 * The `switchboard.consent` section of a config: which providers ask a person (raced, first
 * answer wins), how long a request waits, calls that always ask, and the signed webhook.
 *
 * ```json
 * "consent": {
 *   "providers": ["terminal", "queue", "webhook"],
 *   "timeoutMs": 120000,
 *   "ask": ["mail/send_*", "fs/delete_file"],
 *   "webhook": { "url": "https://approvals.example/hook", "secret": "${env:SWITCHBOARD_WEBHOOK_SECRET}" }
 * }
 * ```
 *
 * `elicitation` (the agent's own client approves, recorded as client-mediated) is used only
 * when listed. Without the section: `terminal` (when the gateway has a TTY) and `queue`.
 *
 * @module
 */
import { expandEnv } from './configEnv.js';
import type { ConfigReader } from './configRead.js';
import { childPath } from './configTypes.js';
import { isLoopbackHttp } from './canonicalServerUrl.js';
import { CONSENT_DEFAULTS, type ConsentConfig, type ConsentProviderName, type ConsentWebhookConfig } from './consent/consentSettings.js';

const PROVIDERS: readonly ConsentProviderName[] = ['terminal', 'queue', 'elicitation', 'webhook'];

/** Reads `$.switchboard.consent` (defaults when absent); `${env:…}` in the webhook secret is expanded from `env`. */
export function readConsent(read: ConfigReader, value: unknown, env: Readonly<Record<string, string | undefined>>, warnings: string[]): ConsentConfig {
  if (value === undefined) return CONSENT_DEFAULTS;
  const path = '$.switchboard.consent';
  const section = read.record(value, path);
  read.strictKeys(section, ['providers', 'timeoutMs', 'ask', 'webhook'], path);
  const providers =
    section['providers'] === undefined
      ? CONSENT_DEFAULTS.providers
      : (read.strings(section['providers'], childPath(path, 'providers'), (s, p) => read.choice(s, PROVIDERS, p)) as ConsentProviderName[]);
  if (providers.length === 0) read.fail(childPath(path, 'providers'), 'list at least one provider (a call that needs consent with no provider is always denied)');
  const ask = section['ask'] === undefined ? [] : read.strings(section['ask'], childPath(path, 'ask'), (s, p) => (/^[^/]+\/.+$/.test(s) ? s : read.fail(p, `expected "<server id>/<tool>" (globs allowed), not ${JSON.stringify(s)}`)));
  let webhook: ConsentWebhookConfig | undefined;
  if (section['webhook'] !== undefined) {
    const at = childPath(path, 'webhook');
    const w = read.record(section['webhook'], at);
    read.strictKeys(w, ['url', 'secret', 'timeoutMs', 'replayWindowMs'], at);
    const url = read.string(w['url'], childPath(at, 'url'), true);
    if (!URL.canParse(url) || (new URL(url).protocol !== 'https:' && !isLoopbackHttp(url))) read.fail(childPath(at, 'url'), 'expected an https URL (http only on loopback)');
    const rawSecret = read.string(w['secret'], childPath(at, 'secret'), true);
    if (!rawSecret.includes('${env:')) warnings.push(`${read.file}: ${childPath(at, 'secret')}: the webhook secret is written in the config; prefer \${env:NAME}`);
    const secret = expandEnv(rawSecret, { file: read.file, path: childPath(at, 'secret'), env });
    if (secret.length < 16) read.fail(childPath(at, 'secret'), 'the webhook secret needs at least 16 characters');
    webhook = {
      url,
      secret,
      timeoutMs: w['timeoutMs'] === undefined ? 10_000 : read.integer(w['timeoutMs'], 1, 600_000, childPath(at, 'timeoutMs')),
      replayWindowMs: w['replayWindowMs'] === undefined ? 300_000 : read.integer(w['replayWindowMs'], 1_000, 3_600_000, childPath(at, 'replayWindowMs')),
    };
  }
  if (providers.includes('webhook') && webhook === undefined) read.fail(childPath(path, 'webhook'), 'the webhook provider needs a "webhook" section { url, secret }');
  return {
    providers,
    timeoutMs: section['timeoutMs'] === undefined ? CONSENT_DEFAULTS.timeoutMs : read.integer(section['timeoutMs'], 1_000, 86_400_000, childPath(path, 'timeoutMs')),
    ask,
    webhook,
  };
}
