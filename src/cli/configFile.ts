/**
 * Reading a `switchboard.json` from disk for the commands that need one (gateway, audit, ...).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { parseConfig } from '../host/config.js';
import type { HostConfig } from '../host/configTypes.js';
import { UsageError } from './args.js';

/**
 * Reads and parses the config `file` with the process environment for `${env:…}`.
 *
 * @throws UsageError when the file does not exist (saying how to make one); `ConfigError` when it is invalid.
 */
export async function loadConfig(file: string): Promise<HostConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UsageError(`no config at ${file}: write one (see examples/switchboard.json) or create it from your MCP clients with \`switchboard import --out ${file}\``);
    }
    throw error;
  }
  return parseConfig(text, { file, env: process.env });
}
