/**
 * Bytes allocated per request (`npm run bench:instructions -- --alloc`): the lines the
 * preloaded sampler ({@link ./allocSampler.ts}) prints on stderr, and the summary of the V8
 * sampling heap profile it writes.
 *
 * @module
 */

/** Printed once sampling has started (after the first SIGUSR2). */
export const ALLOC_STARTED = /^SB-ALLOC started$/m;
/** Printed once the profile is written (after the second SIGUSR2). */
export const ALLOC_WRITTEN = /^SB-ALLOC written$/m;

/** The parts of a V8 `SamplingHeapProfile` (DevTools protocol, `HeapProfiler`) read here. */
export interface SamplingHeapProfile {
  readonly head: ProfileNode;
  readonly samples: readonly { readonly size: number; readonly nodeId: number }[];
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children: readonly ProfileNode[];
}

/**
 * The sampled bytes in all (an unbiased estimate of the bytes allocated while sampling), and
 * by site: the allocating function and its caller, as `name@file:line < name@file:line`.
 */
export function summarizeAllocations(profile: SamplingHeapProfile): { total: number; bySite: Map<string, number> } {
  const bytesOf = new Map<number, number>();
  let total = 0;
  for (const sample of profile.samples) {
    bytesOf.set(sample.nodeId, (bytesOf.get(sample.nodeId) ?? 0) + sample.size);
    total += sample.size;
  }
  const bySite = new Map<string, number>();
  const frame = (node: ProfileNode): string => `${node.callFrame.functionName || '(anonymous)'}@${node.callFrame.url.split('/').pop() ?? ''}:${node.callFrame.lineNumber + 1}`;
  // Iterative: a deep async stack must not overflow ours.
  const stack: { node: ProfileNode; caller: ProfileNode | undefined }[] = [{ node: profile.head, caller: undefined }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, caller } = next;
    const bytes = bytesOf.get(node.id);
    if (bytes !== undefined) {
      const site = caller === undefined ? frame(node) : `${frame(node)} < ${frame(caller)}`;
      bySite.set(site, (bySite.get(site) ?? 0) + bytes);
    }
    for (const child of node.children) stack.push({ node: child, caller: node });
  }
  return { total, bySite };
}
