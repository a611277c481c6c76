// Runs the downstream OAuth token-store contract against the token files and PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { OAuthTokenFiles } from '../../../src/store/oauthTokenFiles.js';
import { PgOAuthTokens } from '../../../src/store/postgres/pgOAuthTokens.js';
import { openTestPostgres } from './backends.js';
import { tokenStoreContract } from './tokenStore.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-token-contract-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

tokenStoreContract('files', async () => new OAuthTokenFiles(join(dir, `state-${n++}`)));
tokenStoreContract('PostgreSQL', async () => new PgOAuthTokens(await openTestPostgres()));
