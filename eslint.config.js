// ESLint (flat config): @eslint/js recommended and typescript-eslint recommended everywhere, a few
// type-checked rules on the TypeScript, the React hooks rules in the renderer. `npm run lint`;
// part of `npm test`, after the format check and before the typecheck.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Built output and reports (as in .gitignore; node_modules is ignored by default).
  globalIgnores(['out/', 'lib/', 'dist/', 'coverage/', 'test-results/', 'playwright-report/', '.tmp/']),
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // Everything. The plain JavaScript (scripts/, bin/, these configs) runs on Node.js.
    languageOptions: { globals: globals.node },
    rules: {
      // Dropping a field by destructuring it beside a rest (`const { hash: _hash, ...rest } = key`) is how the code omits one.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // The tests match column-aligned output, where a literal run of spaces reads as the output does.
      'no-regex-spaces': 'off',
    },
  },
  {
    // Type-checked rules, the ones that catch real mistakes in code full of async work. The type
    // program (projectService: tsconfig.json's) costs about as much as a typecheck, paid once:
    // measured on 2 cores, `eslint .` takes about 25 s of CPU without types, 48 s with
    // no-floating-promises, about 63 s with all of these. All of recommendedTypeChecked would take
    // 80 s and report some 700 more problems, mostly deliberate code (no-unsafe-*, restrict-template-expressions,
    // unbound-method, require-await).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      // Passing on a caught `unknown` as it is, as the code does, is not a mistake.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-array-delete': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/restrict-plus-operands': 'error',
    },
  },
  {
    // Tests, their helpers and the benchmarks read the JSON answers of the code under test as `any`, to assert on them without a cast at every step.
    files: ['**/*.test.ts', '**/*.test.tsx', '**/*test-helpers.ts', 'src/testing/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The classic rules of hooks only: the rest of the plugin's recommended set are the React
    // Compiler's rules, for code that it compiles, which the renderer's is not.
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx', 'src/testing/renderer/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      // An error rather than the plugin's warning: a warning in the long output of `npm test` goes unseen.
      'react-hooks/exhaustive-deps': 'error',
    },
  },
);
