/**
 * The settings of `switchboard.consent` as the loader produces them (`configConsent.ts`
 * parses the section).
 *
 * @module
 */

/** A provider name of the config. */
export type ConsentProviderName = 'terminal' | 'queue' | 'elicitation' | 'webhook';

/** The signed webhook of the config. */
export interface ConsentWebhookConfig {
  readonly url: string;
  /** `${env:…}` expanded; at least 16 characters. */
  readonly secret: string;
  /** How long the POST may take. Default 10 s. */
  readonly timeoutMs: number;
  /** How old (or early) a signed answer may be. Default 5 min. */
  readonly replayWindowMs: number;
}

/** `switchboard.consent`, with defaults. */
export interface ConsentConfig {
  readonly providers: readonly ConsentProviderName[];
  readonly timeoutMs: number;
  /** `<server id>/<tool>` globs (`*`, `?`) of calls that always ask. */
  readonly ask: readonly string[];
  readonly webhook: ConsentWebhookConfig | undefined;
}

/** The section's defaults. */
export const CONSENT_DEFAULTS: ConsentConfig = Object.freeze({ providers: ['terminal', 'queue'] as ConsentProviderName[], timeoutMs: 120_000, ask: [] as string[], webhook: undefined });
