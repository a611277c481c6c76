// Types of dist/console/vendor/hooks.mjs (preact/hooks, written by the build); see preact.d.mts.
export * from 'preact/hooks';
