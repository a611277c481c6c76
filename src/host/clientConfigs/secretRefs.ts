/**
 * Keeping secrets out of `switchboard.json` on `wrap`: every literal value of a server's `env`
 * and `headers` (tokens, API keys) is replaced by a `${env:NAME}` reference, and the value
 * itself goes to the environment of the gateway entry `wrap` writes into the client's config,
 * where it was before (the client's file, with the client file's mode). Values that already
 * hold a `${…}` reference stay as they are.
 *
 * Naming: an env entry keeps its own name (`GITHUB_TOKEN`) unless that name is taken by a
 * different value or would change the gateway process itself (`PATH`, `HOME`, `NODE_*`,
 * `LD_*`, ...); then it is prefixed with the server id (`WORK_GITHUB_TOKEN`), and numbered
 * when even that is taken. A header becomes `<SERVER>_<HEADER>` (`LINEAR_AUTHORIZATION`).
 * The server still sees its variable under its own name: only the reference is renamed.
 *
 * @module
 */
import { toServerId, type SourcedServer } from './merge.js';
import type { ServerEntry } from './types.js';

/** The servers with references in place of secrets, and the variables the gateway entry must set. */
export interface SecretsMoved {
  readonly servers: readonly SourcedServer[];
  /** NAME → value, for the gateway entry's `env` in the client's config. */
  readonly env: Readonly<Record<string, string>>;
  /** What was renamed (never a value). */
  readonly notes: readonly string[];
}

/** Variables that change the gateway process itself (or its Node runtime): never set under their own name. */
const RESERVED = /^(PATH|HOME|USER|LOGNAME|SHELL|TERM|LANG|TMPDIR|TEMP|TMP|PWD|USERPROFILE|APPDATA|LOCALAPPDATA|SYSTEMROOT|COMSPEC|(NODE|LD|DYLD|NPM|npm|SWITCHBOARD)_.*)$/i;

/** A valid `${env:NAME}` name made of `text`: other characters become `_`, upper case. */
function envName(text: string): string {
  const name = text.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

/** True for a value that already refers to the environment (or holds any `${…}`): left alone. */
function isReference(value: string): boolean {
  return value.includes('${');
}

/** Moves the literal env and header values of `incoming` to gateway variables (see the module doc). */
export function moveSecretsToEnv(incoming: readonly SourcedServer[]): SecretsMoved {
  const env = new Map<string, string>();
  const notes: string[] = [];
  const take = (wanted: string, prefix: string, value: string): string => {
    const candidates = [...(RESERVED.test(wanted) ? [] : [wanted]), `${prefix}_${wanted}`];
    for (const name of candidates) {
      if (!env.has(name) || env.get(name) === value) {
        env.set(name, value);
        return name;
      }
    }
    for (let n = 2; ; n++) {
      const name = `${prefix}_${wanted}_${n}`;
      if (!env.has(name) || env.get(name) === value) {
        env.set(name, value);
        return name;
      }
    }
  };
  const servers = incoming.map(({ source, server }): SourcedServer => {
    const prefix = envName(toServerId(server.id));
    const label = `${JSON.stringify(server.id)} (${source})`;
    const refer = (map: Readonly<Record<string, string>> | undefined, nameOf: (key: string) => string, what: string): Record<string, string> | undefined => {
      if (map === undefined) return undefined;
      const out: Record<string, string> = {};
      for (const [key, value] of Object.entries(map)) {
        if (isReference(value)) {
          out[key] = value;
          continue;
        }
        const wanted = nameOf(key);
        const name = take(wanted, prefix, value);
        if (name !== key) notes.push(`${label}: ${what} ${JSON.stringify(key)} is \${env:${name}} (its value is set for the gateway in the client's config)`);
        out[key] = `\${env:${name}}`;
      }
      return out;
    };
    const entry: ServerEntry =
      'command' in server.entry
        ? { ...server.entry, ...(server.entry.env !== undefined ? { env: refer(server.entry.env, envName, 'env') as Record<string, string> } : {}) }
        : { ...server.entry, ...(server.entry.headers !== undefined ? { headers: refer(server.entry.headers, (h) => `${prefix}_${envName(h)}`, 'header') as Record<string, string> } : {}) };
    return { source, server: { ...server, entry } };
  });
  return { servers, env: Object.fromEntries(env), notes };
}
