/**
 * Runs every section for every target in the tables, `runs` times, interleaving the targets
 * inside each run (so drift on a shared machine hits all of them alike). A target that is
 * marked unsupported, or exits with code 3, becomes an `unsupported` cell; any other failure
 * an `error` cell — neither stops the run.
 *
 * @module
 */
import { clientTargets, FLOOR, serverTargets, type ServerTarget, type Support } from '../targets.js';
import { clientLoad, coldStart, floorStdioEndpoint, httpLoad, sessionMemory, startHttp, startTarget, stdioLoad, Unsupported, type Metrics, type Timing } from './measure.js';
import { CellStore, type Cell, type Section } from './results.js';

/** What to run. */
export interface Settings {
  readonly smoke: boolean;
  readonly runs: number;
  readonly timing: Timing;
  readonly coldStarts: number;
  readonly idleSessions: number;
  readonly listTools: number;
  /** Restrict to these target ids (the floor is always kept: ratios need it). */
  readonly only: readonly string[] | undefined;
  readonly sections: readonly string[];
  /** Restrict the HTTP cells to these wires (default both). */
  readonly wires?: readonly (typeof WIRES)[number][];
}

/** The HTTP wires, in report order. */
export const WIRES = ['stateless', 'session'] as const;
/** The concurrency levels. */
export const CONCURRENCY = [1, 32] as const;

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

/** Runs `measure` into a cell, turning failures into `unsupported` / `error` cells. */
async function record(store: CellStore, section: Section, target: string, variant: string, measure: () => Promise<Metrics>): Promise<void> {
  log(`${section} ${target} ${variant}`);
  try {
    store.add(section, target, variant, await measure());
  } catch (error) {
    const unsupported = error instanceof Unsupported;
    store.mark(section, target, variant, unsupported ? 'unsupported' : 'error', (error as Error).message);
    if (!unsupported) log(`  ✗ ${(error as Error).message.slice(0, 400)}`);
  }
}

function skip(store: CellStore, section: Section, target: string, variant: string, support: Support | undefined): boolean {
  if (support === undefined || support === true) return false;
  store.mark(section, target, variant, 'unsupported', support);
  return true;
}

async function httpSection(store: CellStore, target: ServerTarget, settings: Settings): Promise<void> {
  const http = target.http;
  if (http === undefined) return;
  for (const wire of settings.wires ?? WIRES) {
    if (CONCURRENCY.map((c) => skip(store, 'http', target.id, `${wire} c=${c}`, http[wire])).includes(true)) continue;
    // One fresh server per wire and run; c=1 then c=32; its RSS is read after the c=32 load.
    // Before its c=1 cell a server is first warmed at c=32 (twice the warm-up, not measured): at
    // c=1 a few thousand requests are not enough for V8 to finish optimising a large code path
    // (a gateway's), and the cell would measure the compiler rather than the steady state.
    let server: Awaited<ReturnType<typeof startTarget>> | undefined;
    for (const c of CONCURRENCY) {
      await record(store, 'http', target.id, `${wire} c=${c}`, async () => {
        if (server === undefined) {
          server = await startTarget(http.entry, wire);
          // A target that cannot take c=32 (supergateway's stateless mode) is measured at c=1 all the same.
          if (settings.timing.warmupMs > 0 && !settings.timing.verify) await httpLoad(server, wire, 32, { ...settings.timing, warmupMs: 2 * settings.timing.warmupMs, durationMs: 100 }).catch(() => undefined);
        }
        return httpLoad(server, wire, c, settings.timing);
      });
    }
    await server?.stop();
  }
}

async function listSection(store: CellStore, target: ServerTarget, settings: Settings): Promise<void> {
  const http = target.http;
  if (http === undefined || skip(store, 'list', target.id, 'c=1', http.listAndSessions)) return;
  const wire = http.stateless === undefined || http.stateless === true ? 'stateless' : 'session';
  if (wire === 'session' && skip(store, 'list', target.id, 'c=1', http.session)) return;
  await record(store, 'list', target.id, 'c=1', async () => {
    const server = await startTarget(http.entry, wire, ['--tools', String(settings.listTools)]);
    try {
      return { ...(await httpLoad(server, wire, 1, settings.timing, settings.listTools)), session: wire === 'session' ? 1 : 0 };
    } finally {
      await server.stop();
    }
  });
}

async function sessionsSection(store: CellStore, target: ServerTarget, settings: Settings): Promise<void> {
  const http = target.http;
  if (http === undefined || skip(store, 'sessions', target.id, 'idle', http.listAndSessions) || skip(store, 'sessions', target.id, 'idle', http.session)) return;
  await record(store, 'sessions', target.id, 'idle', () => sessionMemory(http.entry, settings.idleSessions));
}

async function stdioSection(store: CellStore, target: ServerTarget, settings: Settings): Promise<void> {
  const stdio = target.stdio;
  if (stdio === undefined || stdio.coldStartOnly === true) return;
  for (const c of CONCURRENCY) {
    await record(store, 'stdio', target.id, c === 1 ? 'seq' : `c=${c}`, () => stdioLoad(stdio, c, settings.timing));
  }
}

async function coldStartSection(store: CellStore, target: ServerTarget, settings: Settings): Promise<void> {
  const stdio = target.stdio;
  if (stdio === undefined) return;
  await record(store, 'coldstart', target.id, 'tools/list', () => coldStart(stdio, settings.coldStarts));
}

async function clientSection(store: CellStore, settings: Settings): Promise<void> {
  const floor = serverTargets.find((t) => t.id === FLOOR);
  if (floor?.http === undefined || typeof floor.http.entry !== 'string' || floor.stdio === undefined || typeof floor.stdio.entry !== 'string') throw new Error('the floor target needs HTTP and stdio entries');
  const clients = clientTargets.filter((t) => settings.only === undefined || settings.only.includes(t.id) || t.id === 'raw');
  const server = await startHttp(floor.http.entry, ['--mode', 'stateless']);
  try {
    const endpoints = [
      ['http', { kind: 'http', url: `http://127.0.0.1:${server.port}/mcp` }],
      ['stdio', floorStdioEndpoint(floor.stdio.entry)],
    ] as const;
    for (const [transport, endpoint] of endpoints) {
      for (const c of CONCURRENCY) {
        for (const client of clients) {
          if (client.transports !== undefined && !client.transports.includes(transport)) continue;
          await record(store, 'client', client.id, `${transport} c=${c}`, () => clientLoad(client.module, endpoint, c, settings.timing));
        }
      }
    }
  } finally {
    await server.stop();
  }
}

/** Runs every selected section `settings.runs` times and returns the cells. */
export async function runAll(settings: Settings): Promise<Cell[]> {
  const store = new CellStore();
  const targets = serverTargets.filter((t) => settings.only === undefined || settings.only.includes(t.id) || t.id === FLOOR);
  const sections: [string, (t: ServerTarget) => Promise<void>][] = [
    ['http', (t) => httpSection(store, t, settings)],
    ['stdio', (t) => stdioSection(store, t, settings)],
    ['coldstart', (t) => coldStartSection(store, t, settings)],
    ['list', (t) => listSection(store, t, settings)],
    ['sessions', (t) => sessionsSection(store, t, settings)],
  ];
  for (let run = 1; run <= settings.runs; run++) {
    log(`— run ${run}/${settings.runs}`);
    for (const [name, section] of sections) {
      if (!settings.sections.includes(name)) continue;
      for (const target of targets) await section(target);
    }
    if (settings.sections.includes('client')) await clientSection(store, settings);
  }
  return store.all();
}
