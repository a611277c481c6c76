/**
 * `switchboard.audit.retention`: how much of the audit log stays live, and where the rest is
 * archived (sealed, verifiable segments; see `store/auditArchive.ts`). The gateway archives on
 * its own, on a timer off the request path (`store/auditRetention.ts`).
 *
 * @module
 */
import type { ConfigReader } from './configRead.js';
import { resolvePath } from './configPaths.js';
import type { AuditRetentionConfig } from './configTypes.js';

const KEYS = ['keepDays', 'keepGB', 'archiveDir', 'segmentRecords', 'intervalMinutes'];

/**
 * Reads `switchboard.audit.retention` (`value`; undefined = none); `folder` is the config file's
 * folder (a relative `archiveDir` resolves against it) and `stateDir` the resolved state folder.
 */
export function readAuditRetention(read: ConfigReader, value: unknown, folder: string, stateDir: string): AuditRetentionConfig | undefined {
  if (value === undefined) return undefined;
  const path = '$.switchboard.audit.retention';
  const raw = read.record(value, path);
  read.strictKeys(raw, KEYS, path);
  if (raw['keepDays'] === undefined && raw['keepGB'] === undefined) read.fail(path, 'says nothing to keep: give keepDays, keepGB or both');
  const keepGB = raw['keepGB'];
  if (keepGB !== undefined && (typeof keepGB !== 'number' || !Number.isFinite(keepGB) || keepGB <= 0 || keepGB > 1_000_000)) read.fail(`${path}.keepGB`, `expected a number of gigabytes above 0 (up to 1000000), got ${JSON.stringify(keepGB)}`);
  return {
    ...(raw['keepDays'] !== undefined ? { keepDays: read.integer(raw['keepDays'], 1, 36_500, `${path}.keepDays`) } : {}),
    ...(keepGB !== undefined ? { keepGB } : {}),
    archiveDir: raw['archiveDir'] === undefined ? resolvePath(stateDir, 'audit-archive') : resolvePath(folder, read.string(raw['archiveDir'], `${path}.archiveDir`, true)),
    ...(raw['segmentRecords'] !== undefined ? { segmentRecords: read.integer(raw['segmentRecords'], 1000, 10_000_000, `${path}.segmentRecords`) } : {}),
    ...(raw['intervalMinutes'] !== undefined ? { intervalMinutes: read.integer(raw['intervalMinutes'], 1, 1440, `${path}.intervalMinutes`) } : {}),
  };
}
