// Types of dist/console/vendor/htm.mjs (htm's ES module, written by the build); see preact.d.mts.
// htm's own types are CommonJS-shaped; the ES module's default export is the `htm` object.
import type htmModule from 'htm';
declare const htm: typeof htmModule.default;
export default htm;
