/**
 * The `switchboard.sanitize` and `switchboard.redact` sections of a config: output sanitising
 * of results (see `sanitize/sanitize.ts`) and secret redaction of logs and the audit log (see
 * `secrets/redact.ts`). Both are on by default.
 *
 * @module
 */
import type { ConfigReader } from './configRead.js';
import { childPath, type RedactConfig } from './configTypes.js';
import type { SanitizeMode, SanitizeOptions } from './sanitize/sanitize.js';

/** The defaults: sanitising in mode `strip`, no notice, results' secrets left alone, flagged results passed on (the session tainted). */
export const SANITIZE_DEFAULTS: Required<SanitizeOptions> = Object.freeze({ mode: 'strip', wrap: false, redactSecrets: false, withhold: false });
/** The defaults: logs and audit redacted, entropy detector on. */
export const REDACT_DEFAULTS: RedactConfig = Object.freeze({ logs: true, audit: true, entropy: true });

const MODES: readonly SanitizeMode[] = ['strip', 'flag', 'off'];

/** The sanitiser's options of `$.switchboard.sanitize` (`false` = mode `off`), with the defaults filled in. */
export function readSanitize(read: ConfigReader, value: unknown): Required<SanitizeOptions> {
  const path = '$.switchboard.sanitize';
  if (value === undefined) return SANITIZE_DEFAULTS;
  if (value === false) return { ...SANITIZE_DEFAULTS, mode: 'off' };
  const section = read.record(value, path);
  read.strictKeys(section, ['mode', 'wrap', 'redactSecrets', 'withhold'], path);
  return {
    mode: section['mode'] === undefined ? SANITIZE_DEFAULTS.mode : read.choice<SanitizeMode>(section['mode'], MODES, childPath(path, 'mode')),
    wrap: section['wrap'] === undefined ? SANITIZE_DEFAULTS.wrap : read.boolean(section['wrap'], childPath(path, 'wrap')),
    redactSecrets: section['redactSecrets'] === undefined ? SANITIZE_DEFAULTS.redactSecrets : read.boolean(section['redactSecrets'], childPath(path, 'redactSecrets')),
    withhold: section['withhold'] === undefined ? SANITIZE_DEFAULTS.withhold : read.boolean(section['withhold'], childPath(path, 'withhold')),
  };
}

/** The redaction settings of `$.switchboard.redact` (`false` = none), with the defaults filled in. */
export function readRedact(read: ConfigReader, value: unknown): RedactConfig {
  const path = '$.switchboard.redact';
  if (value === undefined) return REDACT_DEFAULTS;
  if (value === false) return { logs: false, audit: false, entropy: false };
  const section = read.record(value, path);
  read.strictKeys(section, ['logs', 'audit', 'entropy'], path);
  const flag = (key: keyof RedactConfig): boolean => (section[key] === undefined ? REDACT_DEFAULTS[key] : read.boolean(section[key], childPath(path, key)));
  return { logs: flag('logs'), audit: flag('audit'), entropy: flag('entropy') };
}
