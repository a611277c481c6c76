// Import boundaries (STYLE.md section 1; the layers are listed in README.md, Architecture), enforced in `npm test`.
// Layers, lowest first:
//   util < jsonrpc < protocol < auth < transport < {server, client} < host < {store, adapters, console} < cli
// Beside the CLI, two programs that are not part of the library: demo/ (the demo server,
// `switchboard everything`) and conformance/ (the official referee's client fixture, its own
// executable). Each may import anything below cli; cli may import demo for `everything`.
// A layer may import itself and anything below it, never above or sideways (except where noted).
const layers = ['util', 'jsonrpc', 'protocol', 'auth', 'transport', 'server', 'client', 'host', 'store', 'adapters', 'console', 'demo', 'conformance', 'cli'];
const belowCli = ['util', 'jsonrpc', 'protocol', 'auth', 'transport', 'server', 'client', 'host', 'store', 'adapters', 'console'];

/** What each layer may import besides itself. */
const allowed = {
  util: [],
  jsonrpc: ['util'],
  protocol: ['util', 'jsonrpc'],
  auth: ['util'], // a standalone OAuth library, like Panva's packages
  transport: ['util', 'jsonrpc', 'protocol', 'auth'],
  server: ['util', 'jsonrpc', 'protocol', 'auth', 'transport'],
  client: ['util', 'jsonrpc', 'protocol', 'auth', 'transport'],
  host: ['util', 'jsonrpc', 'protocol', 'auth', 'transport', 'server', 'client'],
  store: ['util', 'jsonrpc', 'protocol', 'auth', 'transport', 'server', 'client', 'host'],
  adapters: ['util', 'jsonrpc', 'protocol', 'auth', 'transport', 'server', 'client', 'host'],
  console: ['util', 'jsonrpc', 'protocol', 'auth', 'transport', 'server', 'client', 'host'],
  demo: belowCli,
  conformance: belowCli,
  cli: [...belowCli, 'demo'],
};

const layerRules = layers.map((layer) => {
  const forbidden = layers.filter((l) => l !== layer && !allowed[layer].includes(l));
  return {
    name: `layer-${layer}`,
    comment: `${layer}/ may import only ${[layer, ...allowed[layer]].join(', ')} (STYLE.md section 1)`,
    severity: 'error',
    from: { path: `^src/${layer}/` },
    to: { path: `^src/(${forbidden.join('|')})/` },
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'server-client-see-only-transport-types',
      comment: 'server and client see only transport/types, never a concrete transport (STYLE.md section 1)',
      severity: 'error',
      from: { path: '^src/(server|client)/' },
      to: { path: '^src/transport/', pathNot: '^src/transport/types\\.ts$' },
    },
    {
      name: 'node-builtins-only-at-the-edges',
      comment: 'node:* is allowed only in transport/stdio, adapters, store, cli and the demo and conformance programs (STYLE.md section 1)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(transport/stdio|adapters|store|cli|demo|conformance)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-own-barrel',
      comment: 'never import your own barrel: import the module that defines the thing (STYLE.md section 1)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/.*index[.]ts$' },
    },
    {
      name: 'no-circular',
      comment: 'no import cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every import must resolve (the console page runtime in src/console/ui/vendor/ is written by the build)',
      severity: 'error',
      from: { pathNot: '^src/console/ui/lib/html\\.js$' },
      to: { couldNotResolve: true },
    },
    {
      name: 'no-dev-deps-in-src',
      comment: 'src/ must not import devDependencies',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The `@example` bodies are user code (any layer, valibot), type-checked but never built.
    exclude: { path: '\\.examples\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
