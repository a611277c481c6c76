/**
 * `--telemetry FILE` of `switchboard gateway` and `switchboard audit export`: the ES module that
 * registers an OpenTelemetry SDK (tracer, meter, logger providers), imported before anything
 * starts.
 *
 * @module
 */
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CliFailure } from './args.js';

/**
 * Imports the module that registers an OpenTelemetry SDK.
 *
 * @throws CliFailure naming the file and the cause when it cannot be imported.
 */
export async function loadTelemetry(file: string): Promise<void> {
  const path = resolvePath(file);
  try {
    await import(pathToFileURL(path).href);
  } catch (error) {
    throw new CliFailure(`--telemetry ${file}: could not import ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
