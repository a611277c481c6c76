import type { AuditLog } from '../../../../src/host/audit.js';

/**
 * An audit log that writes what it is told into `events`: `announce`, `withdraw`, and
 * `append <name or method> announced=<flag>` (each append resolves with a made-up record, or
 * rejects with "not written" when `fail` is set).
 */
export function announcingLog(events: string[], fail = false): AuditLog {
  return {
    problem: undefined,
    announce: () => events.push('announce'),
    withdraw: () => events.push('withdraw'),
    append(entry, announced) {
      events.push(`append ${entry.name ?? entry.method} announced=${String(announced)}`);
      return fail ? Promise.reject(new Error('not written')) : Promise.resolve({ ...entry, seq: events.length, prev: '', hash: '' });
    },
  };
}
