// `npm test` on a fresh machine (#33 item 8): scripts/testServices.sh installs HAProxy and
// Chromium with apt-get when they are missing (as root, else through sudo) and stops with a
// clear message when it cannot. Played without touching the machine's packages: the programs
// are looked for at paths that do not exist (SWITCHBOARD_TEST_HAPROXY / _CHROMIUM), PATH holds
// only stand-ins for `id`, `sudo` and `apt-get` that record how they were called, and the
// script stops after the programs (SWITCHBOARD_TEST_SERVICES=programs).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const SCRIPT = new URL('../../scripts/testServices.sh', import.meta.url).pathname;

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-testservices-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Machine {
  readonly uid: number;
  readonly sudo: boolean;
  /** apt-get's exit code (100: what it exits with when it cannot fetch or lock). */
  readonly aptExit?: number;
  /** Whether a successful install puts the programs where they are looked for (default true). */
  readonly aptInstalls?: boolean;
  /** Programs already there. */
  readonly present?: readonly ('haproxy' | 'chromium')[];
}

function script(file: string, body: string): void {
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

/** Runs the script on a played machine; resolves with its exit code, stderr and the stand-ins' call log. */
function run(name: string, machine: Machine): Promise<{ code: number; stderr: string; calls: string[] }> {
  const root = join(dir, name);
  const bin = join(root, 'bin');
  const programs = join(root, 'programs');
  mkdirSync(bin, { recursive: true });
  mkdirSync(programs, { recursive: true });
  const log = join(root, 'calls.log');
  const haproxy = join(programs, 'haproxy');
  const chromium = join(programs, 'chromium');
  for (const program of machine.present ?? []) script(join(programs, program), 'exit 0');
  script(join(bin, 'id'), `if [ "$1" = -u ]; then echo ${machine.uid}; else echo user; fi`);
  if (machine.sudo) script(join(bin, 'sudo'), `printf 'sudo ' >> ${log}\nexec "$@"`);
  const installs = machine.aptInstalls !== false ? `for p in "$@"; do case "$p" in haproxy) printf '#!/bin/sh\\n' > ${haproxy}; /bin/chmod +x ${haproxy};; chromium) printf '#!/bin/sh\\n' > ${chromium}; /bin/chmod +x ${chromium};; esac; done` : ':';
  script(join(bin, 'apt-get'), `printf 'apt-get %s (DEBIAN_FRONTEND=%s)\\n' "$*" "$DEBIAN_FRONTEND" >> ${log}\n[ "$1" = install ] && { ${installs}; }\nexit ${machine.aptExit ?? 0}`);
  symlinkSync('/usr/bin/env', join(bin, 'env'));
  const env = { PATH: bin, HOME: root, SWITCHBOARD_TEST_HAPROXY: haproxy, SWITCHBOARD_TEST_CHROMIUM: chromium, SWITCHBOARD_TEST_SERVICES: 'programs' };
  return new Promise((resolve) => {
    execFile('/bin/bash', [SCRIPT], { env, timeout: 20_000 }, (error, _stdout, stderr) => {
      const calls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') : [];
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stderr, calls });
    });
  });
}

describe('scripts/testServices.sh on a fresh machine (#33)', { timeout: 30_000 }, () => {
  it('as root, without HAProxy and Chromium: installs both with apt-get (non-interactive) and goes on', async () => {
    const { code, stderr, calls } = await run('root', { uid: 0, sudo: false });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /testServices: installing haproxy chromium \(apt-get\)/);
    assert.deepEqual(calls, ['apt-get update -qq (DEBIAN_FRONTEND=)', 'apt-get install -y -qq haproxy chromium (DEBIAN_FRONTEND=noninteractive)']);
  });

  it('as a user with sudo: installs only what is missing, through sudo', async () => {
    const { code, stderr, calls } = await run('sudo', { uid: 1000, sudo: true, present: ['haproxy'] });
    assert.equal(code, 0, stderr);
    assert.deepEqual(calls, ['sudo apt-get update -qq (DEBIAN_FRONTEND=)', 'sudo apt-get install -y -qq chromium (DEBIAN_FRONTEND=noninteractive)']);
  });

  it('no root: as a user without sudo it stops (exit 1) naming the packages and how to install them, and runs no apt-get', async () => {
    const { code, stderr, calls } = await run('user', { uid: 1000, sudo: false });
    assert.equal(code, 1);
    assert.equal(stderr, 'testServices: the tests need the Debian packages: haproxy chromium. Install them as root (apt-get install haproxy chromium) and run again.\n');
    assert.deepEqual(calls, []);
  });

  it('apt-get fails (no network, no lock): exit 1 with what to install, not a test run that fails later', async () => {
    const { code, stderr } = await run('apt-fails', { uid: 0, sudo: false, aptExit: 100 });
    assert.equal(code, 1);
    assert.match(stderr, /testServices: apt-get could not install haproxy chromium \(see above\)\. Install them as root \(apt-get install haproxy chromium\) and run again\./);
  });

  it('apt-get succeeds but a program is still not where the tests look: exit 1 naming it', async () => {
    const { code, stderr } = await run('apt-elsewhere', { uid: 0, sudo: false, aptInstalls: false });
    assert.equal(code, 1);
    assert.match(stderr, /apt-get finished, but haproxy chromium is still missing \(chromium is looked for at \S+chromium/);
  });

  it('both present: nothing installed, nothing said', async () => {
    const { code, stderr, calls } = await run('present', { uid: 1000, sudo: false, present: ['haproxy', 'chromium'] });
    assert.equal(code, 0);
    assert.equal(stderr, '');
    assert.deepEqual(calls, []);
  });
});
