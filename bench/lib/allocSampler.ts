/**
 * Preloaded (`node --import`) into a target by `bench:instructions --alloc`: the first SIGUSR2
 * starts V8's sampling heap profiler, keeping the samples of objects the garbage collector
 * frees later (so the profile counts what was allocated, not what survived); the second stops
 * it and writes the profile to `$SB_ALLOC_PROFILE`. Each step prints a line on stderr
 * (`lib/allocations.ts`). Nothing happens until the first signal.
 *
 * With `SB_ALLOC_SURVIVORS=1` the samples of objects a scavenge freed are dropped: the profile
 * then counts only what survived the young generation (promoted to old space, then freed by a
 * mark-compact or still alive), the bytes that make scavenges slow and mark-compacts frequent.
 *
 * @module
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const out = process.env['SB_ALLOC_PROFILE'];
if (out === undefined || out === '') throw new Error('allocSampler: SB_ALLOC_PROFILE names no file');
const session = new Session();
session.connect();
const survivorsOnly = process.env['SB_ALLOC_SURVIVORS'] === '1';
const post = (method: string, params?: object): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error === null ? resolve(result as Record<string, unknown>) : reject(error))));

let sampling = false;
process.on('SIGUSR2', () => {
  const step = sampling
    ? post('HeapProfiler.stopSampling').then((result) => {
        writeFileSync(out, JSON.stringify(result['profile']));
        process.stderr.write('SB-ALLOC written\n');
      })
    : post('HeapProfiler.enable')
        // 2 KiB between samples on average: ~15 samples per forwarded call, a few % of CPU.
        .then(() => post('HeapProfiler.startSampling', { samplingInterval: 2048, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !survivorsOnly }))
        .then(() => process.stderr.write('SB-ALLOC started\n'));
  sampling = !sampling;
  step.catch((error: unknown) => process.stderr.write(`SB-ALLOC failed: ${String(error)}\n`));
});
