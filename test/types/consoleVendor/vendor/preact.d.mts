// Types of dist/console/vendor/preact.mjs (a copy of preact's ES module, written by the build),
// for the type check of src/console/ui/ (tsconfig.console.json maps the folder with rootDirs).
export * from 'preact';
