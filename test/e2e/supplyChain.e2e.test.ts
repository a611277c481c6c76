// Supply-chain checks of stdio launches (issue #32), done as a user does them: `switchboard scan`,
// `switchboard wrap` and `switchboard gateway` (with its console) run as real processes on configs
// whose servers start through stand-in `npx`, `uvx` and `docker` programs. Each stand-in logs its
// command line before serving a clean fixture server, so every test is judged by whether the
// process was launched at all, not by what the CLI said.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { signIn } from '../interop/fixtures/consoleClient.js';
import { startCli } from '../unit/cli/cliProcess.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const server = fileURLToPath(new URL('../fixtures/attacks/rugPullServer.ts', import.meta.url));
const GITHUB = '@modelcontextprotocol/server-github';
const DIGEST = `sha256:${'d'.repeat(64)}`;

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let dir: string;
let bin: string;
let log: string;

/** The environment of a user whose HOME is the temporary one. */
function userEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, NODE_OPTIONS: '', HOME: dir };
  for (const name of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'APPDATA', 'CODEX_HOME', 'USERPROFILE']) delete env[name];
  return env;
}

/** Runs `switchboard <args>` from source as a separate process, to its end. */
function cli(...args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: root, timeout: 60_000, env: userEnv() }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** The command lines the stand-ins were started with, one a launch. */
function launches(): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter((l) => l !== '') : [];
}

/** A config folder holding `switchboard.json` with `servers` (state in the folder); its file path. */
function configOf(servers: Record<string, { command: string; args: string[] }>): string {
  const folder = mkdtempSync(join(dir, 'config-'));
  const file = join(folder, 'switchboard.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers, switchboard: { stateDir: '.switchboard' } }));
  return file;
}

const npx = (...args: string[]): { command: string; args: string[] } => ({ command: join(bin, 'npx'), args });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-supply-'));
  bin = join(dir, 'bin');
  log = join(dir, 'launched.log');
  mkdirSync(bin);
  // Stand-ins named like the runners (the checks read the runner's base name): log, then serve a clean server.
  for (const runner of ['npx', 'uvx', 'docker']) {
    const script = `#!/bin/sh\nprintf '%s\\n' "${runner} $*" >> ${JSON.stringify(log)}\nexec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(server)}\n`;
    writeFileSync(join(bin, runner), script);
    chmodSync(join(bin, runner), 0o755);
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

describe('e2e: supply chain of launches, through switchboard scan', { timeout: 120_000 }, () => {
  it('typosquat: scan --yes does not launch npx -y @modelcontextprotocol/server-githb (one edit from server-github) and says why', async () => {
    const before = launches().length;
    const out = await cli('scan', configOf({ github: npx('-y', '@modelcontextprotocol/server-githb@1.0.0') }), '--yes');
    assert.equal(launches().length, before, 'the look-alike package was never started');
    assert.equal(out.code, 3, out.stdout + out.stderr);
    assert.match(out.stdout, /NOT SCANNED {2}github:.*is flagged/);
    assert.match(out.stdout, /WARNING \(typosquat\): .*one edit away from the well-known "@modelcontextprotocol\/server-github"/);
    assert.match(out.stdout, /--yes does not approve a flagged launch/);
  });

  it('confusable: capital I for l, a Cyrillic o, an underscore for a hyphen, a dropped @: none is launched with --yes', async () => {
    const before = launches().length;
    for (const spec of ['@modeIcontextprotocol/server-github@1.0.0', '@modelcontextprotocоl/server-github@1.0.0', '@modelcontextprotocol/server_github@1.0.0', 'modelcontextprotocol/server-github']) {
      const out = await cli('scan', configOf({ github: npx('-y', spec) }), '--yes');
      assert.equal(out.code, 3, spec);
      assert.match(out.stdout, /WARNING \(confusable\): .*looks like the well-known "@modelcontextprotocol\/server-github"/, spec);
    }
    assert.equal(launches().length, before, 'no look-alike package was started');
  });

  it('confusable: an npm alias that shows server-github but fetches another package is not launched with --yes', async () => {
    const before = launches().length;
    const out = await cli('scan', configOf({ github: npx('-y', `${GITHUB}@npm:helpful-tools@1.0.0`) }), '--yes');
    assert.equal(launches().length, before);
    assert.match(out.stdout, /an alias that shows "@modelcontextprotocol\/server-github" but fetches "helpful-tools"/);
  });

  it('typosquat: a docker image one edit from mcp/github, even pinned by digest, is not launched with --yes', async () => {
    const before = launches().length;
    const out = await cli('scan', configOf({ github: { command: join(bin, 'docker'), args: ['run', '-i', '--rm', '-e', 'GITHUB_TOKEN', `mcp/githb@${DIGEST}`] } }), '--yes');
    assert.equal(launches().length, before);
    assert.match(out.stdout, /WARNING \(typosquat\): docker run .*"mcp\/github"/);
  });

  it('unpinned: npx -y server-github with no version is launched with --yes, and warned with the fix (pin @x.y.z)', async () => {
    const before = launches().length;
    const out = await cli('scan', configOf({ github: npx('-y', GITHUB) }), '--yes', '--fail-on', 'never');
    assert.equal(out.code, 0, out.stdout + out.stderr);
    assert.deepEqual(launches().slice(before), [`npx -y ${GITHUB}`], 'a warning stops nothing');
    assert.match(out.stderr, /Launch of server "github":\n {2}note \(unpinned\): npx "@modelcontextprotocol\/server-github" is not pinned: no version.*pin one release: @modelcontextprotocol\/server-github@x\.y\.z/);
  });

  it('unpinned: uvx without ==x.y.z and a docker image by tag are launched and warned; pinned ones are not warned', async () => {
    const before = launches().length;
    const out = await cli(
      'scan',
      configOf({
        fetch: { command: join(bin, 'uvx'), args: ['mcp-server-fetch'] },
        image: { command: join(bin, 'docker'), args: ['run', '-i', 'mcp/github:latest'] },
        pinned: npx('-y', `${GITHUB}@2025.4.8`),
      }),
      '--yes',
      '--fail-on',
      'never',
    );
    assert.equal(out.code, 0, out.stdout + out.stderr);
    assert.equal(launches().length - before, 3);
    assert.match(out.stderr, /pin one release: mcp-server-fetch==x\.y\.z/);
    assert.match(out.stderr, /a tag \("latest"\), which can be moved.*mcp\/github@sha256:<digest>/);
    assert.doesNotMatch(out.stderr, /Launch of server "pinned"/);
  });

  it('pinned version bump: approved at server-github@1.0.0, the same entry at @1.0.1 is not launched until approved again', async () => {
    const file = configOf({ github: npx('-y', `${GITHUB}@1.0.0`) });
    const before = launches().length;
    assert.equal((await cli('scan', file, '--yes', '--fail-on', 'never')).code, 0);
    assert.equal(launches().length, before + 1);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(`${GITHUB}@1.0.0`, `${GITHUB}@1.0.1`));
    const bumped = await cli('scan', file);
    assert.equal(bumped.code, 3);
    assert.match(bumped.stdout, /changed since it was approved/);
    assert.equal(launches().length, before + 1, 'the new version was not started');
    // Put back, the approved launch starts again without asking.
    writeFileSync(file, text);
    assert.equal((await cli('scan', file, '--fail-on', 'never')).code, 0);
    assert.equal(launches().length, before + 2);
  });
});

describe('e2e: supply chain of launches, through switchboard wrap and the gateway', { timeout: 120_000 }, () => {
  it('typosquat: wrap --yes approves the clean server and not the look-alike; the wrapped config then starts only the clean one', async () => {
    const cursor = join(dir, '.cursor', 'mcp.json');
    mkdirSync(join(dir, '.cursor'), { recursive: true });
    writeFileSync(cursor, JSON.stringify({ mcpServers: { clean: npx('-y', `${GITHUB}@1.0.0`), squat: npx('-y', '@modelcontextprotocol/server-githb@1.0.0') } }));
    const config = join(dir, 'wrapped', 'switchboard.json');
    mkdirSync(join(dir, 'wrapped'));
    const wrap = await cli('wrap', 'cursor', '--config', config, '--yes');
    assert.equal(wrap.code, 0, wrap.stderr);
    assert.match(wrap.stdout, /approved launches: clean/);
    assert.match(wrap.stdout, /NOT approved yet: squat/);
    assert.match(wrap.stdout, /flagged \(see the warnings above\), so --yes does not approve them: squat/);
    assert.match(wrap.stderr, /Launch of server "squat":\n {2}WARNING \(typosquat\)/);
    const before = launches().length;
    const scan = await cli('scan', config, '--fail-on', 'never');
    assert.deepEqual(launches().slice(before), [`npx -y ${GITHUB}@1.0.0`], 'only the approved, clean launch ran');
    assert.match(scan.stdout, /NOT SCANNED {2}squat:/);
  });

  it('typosquat: the gateway with --yes does not start the look-alike; the console refuses to approve it without the acknowledgement, and starts it with', async () => {
    const file = configOf({ squat: npx('-y', '@modelcontextprotocol/server-githb@1.0.0') });
    const before = launches().length;
    const gateway = startCli(['gateway', '--config', file, '--yes', '--port', '0', '--log-level', 'error'], { HOME: dir });
    try {
      const output = await gateway.waitFor(/Switchboard gateway: (http:\/\/\S+)/);
      const url = new URL((/Switchboard gateway: (http:\/\/\S+)/.exec(output) as RegExpExecArray)[1] as string);
      assert.match(output, /The launch of server "squat" is flagged/);
      const token = readFileSync(join(file, '..', '.switchboard', 'admin-token'), 'utf8').trim();
      const session = await signIn(url.origin, token);
      const review = await session.json<{ launches: { server: string; digest: string; findings: { kind: string; severity: string; imitates?: string }[] }[] }>('/console/api/review');
      const launch = review.launches[0];
      assert.deepEqual(launch?.findings.map((f) => [f.kind, f.severity, f.imitates]), [['typosquat', 'flag', GITHUB]]);
      const unacknowledged = await session.fetch('/console/api/review/launches/approve', { method: 'POST', body: { server: 'squat', digest: launch?.digest } });
      assert.equal(unacknowledged.status, 409);
      assert.match(((await unacknowledged.json()) as { error: string }).error, /needs "acknowledgeFindings": true/);
      assert.equal(launches().length, before, 'nothing started before the acknowledgement');
      const approved = await session.json<{ started: boolean }>('/console/api/review/launches/approve', { method: 'POST', body: { server: 'squat', digest: launch?.digest, acknowledgeFindings: true } });
      assert.equal(approved.started, true);
      assert.deepEqual(launches().slice(before), ['npx -y @modelcontextprotocol/server-githb@1.0.0'], 'started once a person acknowledged the warning');
    } finally {
      await gateway.stop();
    }
  });
});
