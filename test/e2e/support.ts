/**
 * One import for the scenario files: the harness and the fixture's constants.
 *
 * @module
 */
export * from './harness.js';
export { SECRET } from './fixtures/app.js';
