/**
 * One `fdatasync` of the disk the bench's gateways keep their state on (the temporary folder):
 * the median wall time of appending 4 KiB to a file and syncing it, `count` times. Issue #35's
 * c=1 target for the default chain (audit durability `sync`, every answer waiting for its
 * record's sync) is "0.15 ms plus one measured fsync of the same disk": this is that fsync.
 *
 * @module
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The median wall time in ms of one 4 KiB append plus `fdatasync` in `dir` (default: the temporary folder), over `count` rounds after 20 unmeasured ones. */
export function measureFsyncMs(count = 200, dir = tmpdir()): number {
  const folder = mkdtempSync(join(dir, 'switchboard-fsync-'));
  const fd = openSync(join(folder, 'probe'), 'a');
  const block = Buffer.alloc(4096, 0x61);
  const times: number[] = [];
  try {
    for (let i = 0; i < count + 20; i++) {
      const start = process.hrtime.bigint();
      writeSync(fd, block);
      fdatasyncSync(fd);
      if (i >= 20) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    closeSync(fd);
    rmSync(folder, { recursive: true, force: true });
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? NaN;
}
