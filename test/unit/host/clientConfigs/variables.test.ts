// Each client's variable syntax rewritten into Switchboard's ${env:NAME}.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anyOf, convertVariables, envPrefixed, folders, noVariables, plainNames } from '../../../../src/host/clientConfigs/variables.js';
import { inputVariable } from '../../../../src/host/clientConfigs/vscode.js';

describe('convertVariables', () => {
  it('Claude Code: ${NAME} and ${NAME:-default} become ${env:...}', () => {
    const notes: string[] = [];
    assert.equal(convertVariables('${HOST:-localhost}:${PORT}', plainNames, notes, 'url'), '${env:HOST:-localhost}:${env:PORT}');
    assert.deepEqual(notes, []);
  });

  it('Gemini CLI: bare $NAME too, while a lone $ stays', () => {
    assert.equal(convertVariables('Bearer $TOKEN costs $5', plainNames, [], 'h', true), 'Bearer ${env:TOKEN} costs $5');
  });

  it('Cursor / VS Code / Windsurf: ${env:NAME} stays, folders resolve from the context', () => {
    const resolve = anyOf(envPrefixed, folders({ home: '/home/me', projectDir: '/p' }));
    assert.equal(convertVariables('${userHome}/x ${workspaceFolder} ${env:K}', resolve, [], 'args[0]'), '/home/me/x /p ${env:K}');
  });

  it('an unknown reference is kept literally ($${...}) and noted', () => {
    const notes: string[] = [];
    assert.equal(convertVariables('a${workspaceFolder}b', noVariables, notes, 'args[1]'), 'a$${workspaceFolder}b');
    assert.deepEqual(notes, ['args[1]: ${workspaceFolder} cannot be resolved by Switchboard; kept literally']);
  });

  it('VS Code input ids map to variable names', () => {
    assert.equal(inputVariable('perplexity-key'), 'PERPLEXITY_KEY');
    assert.equal(inputVariable('1st.token'), '_1ST_TOKEN');
  });
});
