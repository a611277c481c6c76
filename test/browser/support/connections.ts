// Connections seeded in a real gateway's own store (SQLite in its state folder, sealed with its
// connections key) and read back from it, for the Connections and My connections page tests.
import { openConnectionStore } from '../../../src/cli/connectionStores.js';
import type { Connection } from '../../../src/host/connections.js';

/** The remote server the seeded connections are for. */
export const GH = 'https://gh.example/mcp';

/** A connection of `principal` at github whose tokens carry recognisable secret text (`…SECRET…`). */
export function seededConnection(principal: string, now: number): Connection {
  return {
    principal,
    server: GH,
    serverId: 'github',
    mode: 'per-user',
    tokens: { accessToken: `ACCESS-SECRET-${principal}`, refreshToken: `REFRESH-SECRET-${principal}`, tokenType: 'Bearer', expiresAt: now + 3_600_000, grantedScope: 'repo', requestedScopes: ['repo'], issuer: 'http://127.0.0.1:9', resource: GH },
    createdAt: now - 60_000,
    updatedAt: now - 30_000,
  };
}

/** Stores `connections` in the state folder's store (before the gateway starts: the store and its key are made there, as a sign-in leaves them). */
export async function seedConnections(stateDir: string, connections: readonly Connection[]): Promise<void> {
  const { store } = await openConnectionStore({ stateDir, environment: {} });
  try {
    for (const c of connections) await store.put(c);
  } finally {
    await store.close();
  }
}

/** The principals with a connection in the state folder's store, oldest first. */
export async function storedPrincipals(stateDir: string): Promise<string[]> {
  const { store } = await openConnectionStore({ stateDir, environment: {} });
  try {
    return (await store.list()).map((c) => c.principal);
  } finally {
    await store.close();
  }
}
