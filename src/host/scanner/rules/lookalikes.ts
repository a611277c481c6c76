/**
 * Tool names made to be taken for another server's tool, beyond the confusable and
 * near-duplicate cases of `shadowing.ts`:
 *
 * - `shadowing/namespaced-name`: the name reads as another server's tool in namespaced form:
 *   its skeleton is that server's id followed by that tool's name (`real__create_issue`,
 *   `Real-CreateIssue` or `reаl.create_issue` from server `evil`, beside `create_issue` of
 *   server `real`), whatever the separator. The gateway also renames such a name
 *   (`namespacing.ts`); the finding tells the person reviewing why.
 * - `shadowing/look-alike-name`: not the same name, but the same once case, `-`/`_`/`.`,
 *   `0`/`o` and `1`/`l` are folded (`Create-Issue` beside `create_issue`), or one edit away
 *   from it (`create_isue`) when both names are long enough to be specific and the two
 *   descriptions say nearly the same thing (so `get_user` beside `get_users` with their own
 *   texts is not one).
 *
 * Identical names on two servers are normal under namespacing and are no finding here (a
 * near-duplicate description is `shadowing/impersonation`). Every finding warns; none blocks:
 * naming styles differ between servers, and the call goes to the server named in the exposed
 * name either way.
 *
 * @module
 */
import { emit, type AnalyzedItem } from '../analysis.js';
import { skeleton } from '../text.js';
import { similarity } from './shadowing.js';

/** Shortest skeleton a one-edit look-alike is judged on (shorter names differ by one letter all the time: `get`/`set`). */
const MIN_EDIT_LENGTH = 8;
/** How alike two descriptions must be for a one-edit name to be a finding. */
const MIN_EDIT_SIMILARITY = 0.5;

const ASCII = /^[\x20-\x7E]*$/u;

const skeletons = new Map<string, string>();
/** {@link skeleton}, remembered (the same peer names come back for every scanned item). */
function skeletonOf(name: string): string {
  let s = skeletons.get(name);
  if (s === undefined) {
    if (skeletons.size >= 4096) skeletons.clear();
    s = skeleton(name);
    skeletons.set(name, s);
  }
  return s;
}

/** True when `a` and `b` differ by exactly one insertion, deletion, substitution or adjacent swap. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Runs the look-alike name rules on a tool (see the module comment). */
export function checkLookAlikes(target: AnalyzedItem): void {
  if (target.item.kind !== 'tool') return;
  const name = target.item.name;
  const mine = skeletonOf(name);
  if (mine === '') return;
  // A confusable or impersonating name is already a finding of `shadowing.ts`.
  if (target.hits.some((h) => h.family === 'shadowing' && h.path === '$.name')) return;
  const description = target.strings.find((s) => s.path === '$.description')?.text ?? '';
  for (const peer of target.peers) {
    if (peer.server === target.server) continue;
    const theirs = skeletonOf(peer.tool.name);
    if (theirs !== '' && mine === skeletonOf(peer.server) + theirs) {
      emit(target, {
        rule: 'shadowing/namespaced-name',
        family: 'shadowing',
        severity: 'high',
        confidence: 'high',
        blocking: false,
        message: `name ${JSON.stringify(name)} reads as tool ${peer.tool.name} of server ${peer.server} in namespaced form`,
        evidence: name,
        path: '$.name',
      });
      return;
    }
  }
  const plain = ASCII.test(name);
  for (const peer of target.peers) {
    // When the peer is the confusable one (and this name is plain), the peer is the one flagged.
    if (peer.server === target.server || peer.tool.name === name || (plain && !ASCII.test(peer.tool.name))) continue;
    const theirs = skeletonOf(peer.tool.name);
    const folded = theirs === mine;
    if (!folded && !(mine.length >= MIN_EDIT_LENGTH && oneEditApart(mine, theirs) && similarity(description, peer.tool.description ?? '') >= MIN_EDIT_SIMILARITY)) continue;
    emit(target, {
      rule: 'shadowing/look-alike-name',
      family: 'shadowing',
      severity: 'medium',
      confidence: folded ? 'high' : 'medium',
      blocking: false,
      message: `name ${JSON.stringify(name)} looks like ${peer.tool.name} of server ${peer.server} (${folded ? 'the same once case and separators are folded' : 'one character apart, a near-duplicate description'})`,
      evidence: name,
      path: '$.name',
    });
    return;
  }
}
