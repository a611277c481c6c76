/**
 * The packages a stdio launch fetches and runs, read from its command line: `npx` (`-y`,
 * `--yes`, `-p`/`--package`, `-c`), `npm exec`/`npm x`, `pnpm dlx`/`pnpx`, `yarn dlx`,
 * `bunx`/`bun x`, `uvx`/`uv tool run` (`--from`, `--with`), `pipx run` (`--spec`) and
 * `docker run`/`podman run` (the image). A command given as a path (`/usr/local/bin/npx`),
 * with a Windows suffix (`npx.cmd`), behind `cmd /c` or as `sh -c "<line>"` is read the
 * same way (the shell line split on whitespace: best effort, no quoting rules).
 *
 * This reads what the command line says; it never resolves a version or asks a registry.
 * Options a runner does not document as taking a value are read as switches, so an option
 * unknown here shifts what is taken as the package (see `docs/security.md`).
 *
 * @module
 */

/** Where a launched package comes from. */
export type PackageEcosystem = 'npm' | 'pypi' | 'docker';

/** One package a launch fetches, as written on its command line. */
export interface LaunchPackage {
  readonly ecosystem: PackageEcosystem;
  /** The runner that fetches it (`npx`, `pnpm dlx`, `uvx`, `docker run`, …). */
  readonly runner: string;
  /** The argument as written (`@scope/name@1.2.3`, `mcp-server-fetch==0.6.2`, `mcp/github:latest`). */
  readonly spec: string;
  /** The package (or image) name; for an npm alias (`shown@npm:real@1`), the real one fetched. */
  readonly name: string;
  /** The version, range, tag or digest written, if any. */
  readonly version: string | undefined;
  /** True when the spec names one exact release (npm `x.y.z`, Python `==x.y.z`, an image digest, a git commit). */
  readonly pinned: boolean;
  /** The name shown before `@npm:` when the spec is an npm alias (`@modelcontextprotocol/server-github@npm:other`). */
  readonly alias?: string;
}

/** Value-taking options of each runner (anything else starting with `-` is read as a switch). */
const NPX_VALUES = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--userconfig', '--prefix', '-w', '--workspace', '--loglevel', '--node-options', '--shell', '--script-shell']);
const UVX_VALUES = new Set(['--from', '--with', '-w', '--with-editable', '--with-requirements', '--python', '-p', '--index', '--index-url', '--extra-index-url', '--default-index', '--find-links', '-f', '--constraints', '-c', '--overrides', '--directory', '--project', '--config-file', '--cache-dir', '--exclude-newer', '--index-strategy', '--keyring-provider', '--resolution', '--prerelease', '--refresh-package', '--reinstall-package', '--upgrade-package', '-P', '--color']);
const PIPX_VALUES = new Set(['--spec', '--python', '--index-url', '-i', '--pip-args', '--backend']);
const DOCKER_VALUES = new Set([
  '-a', '--attach', '-c', '--cpu-shares', '--add-host', '--annotation', '--blkio-weight', '--blkio-weight-device', '--cap-add', '--cap-drop', '--cgroup-parent', '--cgroupns', '--cidfile',
  '--cpu-period', '--cpu-quota', '--cpu-rt-period', '--cpu-rt-runtime', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--detach-keys', '--device', '--device-cgroup-rule', '--device-read-bps',
  '--device-read-iops', '--device-write-bps', '--device-write-iops', '--dns', '--dns-option', '--dns-search', '--domainname', '--entrypoint', '-e', '--env', '--env-file', '--expose', '--gpus',
  '--group-add', '--health-cmd', '--health-interval', '--health-retries', '--health-start-interval', '--health-start-period', '--health-timeout', '-h', '--hostname', '--ip', '--ip6', '--ipc',
  '--isolation', '--kernel-memory', '-l', '--label', '--label-file', '--link', '--link-local-ip', '--log-driver', '--log-opt', '--mac-address', '-m', '--memory', '--memory-reservation',
  '--memory-swap', '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--net-alias', '--oom-score-adj', '--pid', '--pids-limit', '--platform', '-p', '--publish',
  '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts',
  '-v', '--volume', '--volume-driver', '--volumes-from', '-w', '--workdir',
]);

/** An option list read up to the first positional: the options with their values, and the rest. */
interface Split {
  readonly options: readonly (readonly [string, string | undefined])[];
  readonly rest: readonly string[];
}

/** Splits `args` at the first positional (or after `--`); `--name=value` and value-taking options (`takes`) keep their value. */
function splitOptions(args: readonly string[], takes: ReadonlySet<string>): Split {
  const options: [string, string | undefined][] = [];
  let i = 0;
  while (i < args.length) {
    const arg = args[i] as string;
    if (arg === '--') return { options, rest: args.slice(i + 1) };
    if (!arg.startsWith('-') || arg === '-') break;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) options.push([arg.slice(0, eq), arg.slice(eq + 1)]);
    else if (takes.has(arg)) {
      options.push([arg, args[i + 1]]);
      i++;
    } else if (!arg.startsWith('--') && arg.length > 2) {
      // Short switches run together (`-it`); the last one may take the next argument or the rest (`-ehello`).
      const last = `-${arg[arg.length - 1] as string}`;
      const glued = [...arg.slice(1)].findIndex((c, k) => k < arg.length - 2 && takes.has(`-${c}`));
      if (glued >= 0) options.push([`-${arg[glued + 1] as string}`, arg.slice(glued + 2)]);
      else if (takes.has(last)) {
        options.push([last, args[i + 1]]);
        i++;
      } else options.push([arg, undefined]);
    } else options.push([arg, undefined]);
    i++;
  }
  return { options, rest: args.slice(i) };
}

/** The values of the options named `names`. */
function valuesOf(split: Split, names: readonly string[]): string[] {
  return split.options.filter(([name, value]) => names.includes(name) && value !== undefined).map(([, value]) => value as string);
}

/** The command's runner name: its base name, lower case, without a Windows suffix. */
function runnerName(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  return base.toLowerCase().replace(/\.(cmd|exe|bat|ps1)$/, '');
}

/** The packages fetched by the launch `command args` (empty when it runs nothing from a registry). */
export function launchPackages(command: string, args: readonly string[]): LaunchPackage[] {
  const runner = runnerName(command);
  if (runner === 'cmd' && /^\/[cCkK]$/.test(args[0] ?? '') && args.length > 1) return launchPackages(args[1] as string, args.slice(2));
  if (['sh', 'bash', 'zsh', 'dash'].includes(runner) && args[0] === '-c' && args[1] !== undefined) {
    const words = args[1].split(/\s+/).filter((w) => w !== '' && w !== 'exec');
    return words.length > 0 ? launchPackages(words[0] as string, words.slice(1)) : [];
  }
  switch (runner) {
    case 'npx':
    case 'pnpx':
      return npmExec(runner, args);
    case 'npm':
      return args[0] === 'exec' || args[0] === 'x' ? npmExec('npm exec', args.slice(1)) : [];
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      // `pnpm [--package=p] dlx cmd`, `yarn dlx`, `bun x`: options may come before the subcommand.
      const at = args.findIndex((a) => a === 'dlx' || (runner === 'bun' && a === 'x'));
      if (at < 0) return [];
      const before = splitOptions(args.slice(0, at), NPX_VALUES);
      const extra = valuesOf(before, ['-p', '--package']).map((spec) => npmPackage(`${runner} ${args[at] as string}`, spec));
      return [...extra, ...npmExec(`${runner} ${args[at] as string}`, args.slice(at + 1), extra.length > 0)];
    }
    case 'bunx':
      return npmExec(runner, args);
    case 'uvx':
      return uvRun(runner, args);
    case 'uv':
      return args[0] === 'tool' && args[1] === 'run' ? uvRun('uv tool run', args.slice(2)) : [];
    case 'pipx': {
      if (args[0] !== 'run') return [];
      const split = splitOptions(args.slice(1), PIPX_VALUES);
      const spec = valuesOf(split, ['--spec'])[0] ?? split.rest[0];
      return spec === undefined ? [] : [pythonPackage('pipx run', spec)];
    }
    case 'docker':
    case 'podman': {
      const at = args[0] === 'container' ? 1 : 0;
      if (args[at] !== 'run') return [];
      const image = splitOptions(args.slice(at + 1), DOCKER_VALUES).rest[0];
      return image === undefined ? [] : [dockerImage(`${runner} run`, image)];
    }
    default:
      return [];
  }
}

/** `npx`-style options then the package; with `-p`/`--package` (or `packaged`) the first positional is a command, not a package. */
function npmExec(runner: string, args: readonly string[], packaged = false): LaunchPackage[] {
  const split = splitOptions(args, NPX_VALUES);
  const named = valuesOf(split, ['-p', '--package']).map((spec) => npmPackage(runner, spec));
  if (named.length > 0 || packaged || valuesOf(split, ['-c', '--call']).length > 0) return named;
  const first = split.rest[0];
  return first === undefined ? [] : [npmPackage(runner, first)];
}

/** `uvx [options] pkg`: `--from` names the package instead of the first positional; `--with` adds packages. */
function uvRun(runner: string, args: readonly string[]): LaunchPackage[] {
  const split = splitOptions(args, UVX_VALUES);
  const from = valuesOf(split, ['--from']);
  const main = from.length > 0 ? from : split.rest.slice(0, 1);
  return [...main, ...valuesOf(split, ['--with', '-w'])].map((spec) => pythonPackage(runner, spec));
}

const EXACT_SEMVER = /^[=v]?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const COMMIT = /#[0-9a-f]{40}$|@[0-9a-f]{40}$/;

/** An npm package spec: `name`, `name@version`, `@scope/name@range`, `alias@npm:real@1.2.3`, or a git/URL/path spec. */
export function npmPackage(runner: string, spec: string): LaunchPackage {
  if (/^(?:\.{1,2}[\\/]|[\\/]|~[\\/]|file:)/.test(spec)) return { ecosystem: 'npm', runner, spec, name: spec, version: undefined, pinned: true };
  if (/^(?:git\+|git:|github:|gitlab:|bitbucket:|https?:)/.test(spec) || /^[^@/]+\/[^@/]+(?:#.*)?$/.test(spec)) {
    // A git or tarball source (`owner/repo` is GitHub shorthand): pinned only at a commit.
    const name = spec.replace(/^(?:github:|gitlab:|bitbucket:)/, '').replace(/#.*$/, '');
    return { ecosystem: 'npm', runner, spec, name, version: /#(.*)$/.exec(spec)?.[1], pinned: COMMIT.test(spec) };
  }
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  const name = at < 0 ? spec : spec.slice(0, at);
  const version = at < 0 ? undefined : spec.slice(at + 1);
  if (version?.startsWith('npm:') === true) {
    const real = npmPackage(runner, version.slice(4));
    return { ...real, spec, alias: name };
  }
  return { ecosystem: 'npm', runner, spec, name, version, pinned: version !== undefined && EXACT_SEMVER.test(version) };
}

/** A Python requirement as `uvx`/`pipx` take it: `name`, `name[extra]==1.2.3`, `name@1.2.3`, `name>=1`, or a git URL. */
export function pythonPackage(runner: string, spec: string): LaunchPackage {
  if (/^(?:git\+|https?:|file:|\.{1,2}[\\/]|[\\/])/.test(spec)) return { ecosystem: 'pypi', runner, spec, name: spec.replace(/^git\+/, '').replace(/@[^@/]*$/, ''), version: undefined, pinned: COMMIT.test(spec) || /^(?:file:|\.|[\\/])/.test(spec) };
  const match = /^([^\s[=<>!~@;]+)(\[[^\]]*\])?\s*(.*)$/.exec(spec);
  const name = match?.[1] ?? spec;
  const rest = (match?.[3] ?? '').trim();
  const version = rest === '' ? undefined : rest;
  const pinned = version !== undefined && (/^===?\s*[^\s,*;<>=!~]+$/.test(version) || (/^@\s*[^\s,*;<>=!~]+$/.test(version) && version.replace(/^@\s*/, '') !== 'latest'));
  return { ecosystem: 'pypi', runner, spec, name, version, pinned };
}

/** A container image reference: `[registry/]path[:tag][@sha256:digest]`; pinned only by digest (tags move). */
export function dockerImage(runner: string, spec: string): LaunchPackage {
  const digestAt = spec.indexOf('@');
  const beforeDigest = digestAt < 0 ? spec : spec.slice(0, digestAt);
  const digest = digestAt < 0 ? undefined : spec.slice(digestAt + 1);
  const slash = beforeDigest.lastIndexOf('/');
  const colon = beforeDigest.lastIndexOf(':');
  const tag = colon > slash ? beforeDigest.slice(colon + 1) : undefined;
  const name = colon > slash ? beforeDigest.slice(0, colon) : beforeDigest;
  return { ecosystem: 'docker', runner, spec, name, version: digest ?? tag, pinned: digest !== undefined && /^sha256:[0-9a-f]{64}$/.test(digest) };
}
