// Interop: the official SDK v2 client (@modelcontextprotocol/client 2.4, its own
// StdioClientTransport) spawns OUR everything server (`switchboard everything --stdio`) and
// drives it — negotiating 2026-07-28 ('auto': the SDK probes server/discover on a sibling
// process first) and on its default 2025-era path ('legacy'). One server process per client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { legacyNotificationChecks, missingCapabilityChecks, modernNotificationChecks } from './fixtures/ourServerChecks.js';
import { makeV2Client, v2Driver, type V2Setup } from './fixtures/ourServerClients.js';
import { everythingStdioParams, surfaceMatrix, tapWire, toolMatrix } from './fixtures/ourServerHarness.js';

/** The CLI's watched resource changes every 3 s. */
const UPDATE_WAIT_MS = 7000;

async function connect(mode: 'auto' | 'legacy', capabilities: 'all' | 'none' = 'all'): Promise<V2Setup> {
  const setup = makeV2Client(mode, { capabilities });
  const transport = new StdioClientTransport(everythingStdioParams());
  await setup.client.connect(transport, { timeout: 30_000 });
  tapWire(transport, setup.wire);
  return setup;
}

describe('interop: SDK v2 client -> our server, stdio, 2026-07-28', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('auto');
  });
  after(async () => {
    await s.client.close();
  });

  it('negotiates 2026-07-28 through server/discover', () => {
    assert.equal(s.client.getProtocolEra(), 'modern');
    assert.equal(s.client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.deepEqual(s.client.getServerVersion(), { name: 'switchboard-everything', version: '0.1.0' });
    assert.ok(s.client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/tasks'] !== undefined);
  });
  toolMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  surfaceMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  modernNotificationChecks(
    it,
    () => ({ driver: v2Driver(s.client, s.wire), events: s.events, setLoggingLevel: (l) => s.client.setLoggingLevel(l), listen: (f) => s.client.listen(f) }),
    UPDATE_WAIT_MS,
  );
});

describe('interop: SDK v2 client (no capabilities) -> our server, stdio, 2026-07-28', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('auto', 'none');
  });
  after(async () => {
    await s.client.close();
  });
  it('negotiated 2026-07-28', () => assert.equal(s.client.getNegotiatedProtocolVersion(), '2026-07-28'));
  missingCapabilityChecks(it, () => v2Driver(s.client, s.wire));
});

describe('interop: SDK v2 client -> our server, stdio, legacy negotiation (2025-11-25)', () => {
  let s: V2Setup;
  before(async () => {
    s = await connect('legacy');
  });
  after(async () => {
    await s.client.close();
  });

  it('initializes 2025-11-25', () => {
    assert.equal(s.client.getProtocolEra(), 'legacy');
    assert.equal(s.client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.deepEqual(s.client.getServerVersion(), { name: 'switchboard-everything', version: '0.1.0' });
  });
  toolMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  surfaceMatrix(it, () => v2Driver(s.client, s.wire), () => s.log);
  legacyNotificationChecks(
    it,
    () => ({
      driver: v2Driver(s.client, s.wire),
      events: s.events,
      setLoggingLevel: (l) => s.client.setLoggingLevel(l),
      subscribeResource: (p) => s.client.subscribeResource(p),
      unsubscribeResource: (p) => s.client.unsubscribeResource(p),
    }),
    UPDATE_WAIT_MS,
  );
});
