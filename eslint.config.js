// Lint rules. Style is enforced by tooling, not by review (STYLE.md section 7).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**', 'referee/**', 'bench/.out/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-namespace': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // `process` and the console belong to the CLI only (STYLE.md section 1).
    files: ['src/**/*.ts'],
    // The referee's client fixture is an executable of its own: its entry reads argv and env.
    ignores: ['src/cli/**', 'src/conformance/conformanceClient.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'Only src/cli may use process; take what you need as an option.' }],
    },
  },
  {
    // The `@example` bodies (STYLE.md section 7): user code, which reads process and shows the
    // values it gets without using them.
    files: ['src/**/*.examples.ts'],
    rules: { 'no-restricted-globals': 'off', '@typescript-eslint/no-unused-vars': 'off' },
  },
  {
    files: ['src/cli/**/*.ts', 'scripts/**', 'test/**', 'examples/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // The console's pages (src/console/ui): browser ES modules with JSDoc types, checked with
    // their own project (tsconfig.console.json: checkJs, DOM, the vendored runtime's types).
    files: ['src/console/ui/**/*.js'],
    languageOptions: {
      parserOptions: { projectService: false, project: './tsconfig.console.json', tsconfigRootDir: import.meta.dirname },
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'history', 'fetch', 'EventSource', 'URL', 'URLSearchParams', 'addEventListener', 'removeEventListener', 'setTimeout', 'clearTimeout', 'Blob', 'FileReader', 'TextEncoder', 'TextDecoder', 'AbortController', 'navigator', 'atob', 'btoa'].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      // No HTML strings into the DOM, ever: every server string is rendered as text (issue #14).
      'no-restricted-properties': ['error', { property: 'innerHTML' }, { property: 'outerHTML' }, { property: 'insertAdjacentHTML' }, { object: 'document', property: 'write' }],
      'no-restricted-syntax': ['error', { selector: "Identifier[name='dangerouslySetInnerHTML']", message: 'Render server strings as text.' }, { selector: "Literal[value='dangerouslySetInnerHTML']", message: 'Render server strings as text.' }],
    },
  },
  {
    // node:test's describe/it return promises the runner itself tracks.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  { files: ['**/*.cjs', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        ['require', 'process', 'console', 'URL', 'fetch', 'AbortSignal', 'AbortController', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'TextEncoder', 'TextDecoder', 'Buffer'].map((g) => [g, 'readonly']).concat([['module', 'writable']]),
      ),
    },
  },
);
