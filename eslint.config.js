import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Layering, enforced by lint: the engine never imports electron or react; the renderer never imports Node. */
export default tseslint.config(
  {
    ignores: ['node_modules/**', 'out/**', 'dist/**', 'e2e/screenshots/**', 'coverage/**', 'bench/.work/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['src/main/core/**', 'src/cli/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              message: 'The engine and CLI run in plain Node: never import electron here.',
            },
            { name: 'react', message: 'The engine has no UI.' },
            { name: 'react-dom', message: 'The engine has no UI.' },
          ],
          patterns: [
            {
              group: ['**/renderer/**', '**/preload/**'],
              message: 'The engine does not depend on UI layers.',
            },
          ],
        },
      ],
    },
  },
  {
    // One IPC wrapper (STYLE.md): raw ipcMain/ipcRenderer only where the contract is bound.
    files: ['src/main/*.ts'],
    ignores: ['src/main/ipc.ts', 'src/main/index.ts', 'src/main/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'electron',
              importNames: ['ipcMain', 'ipcRenderer'],
              message: 'Use the contract-bound handle() in src/main/ipc.ts, not raw IPC.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'child_process', 'better-sqlite3'],
              message: 'The renderer is sandboxed: no Node APIs.',
            },
            {
              group: ['**/main/**', 'electron'],
              message: 'The renderer talks to the engine only through the contract.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The contract is transport-neutral.' }],
          patterns: [{ group: ['node:*'], message: 'The contract runs in the renderer too.' }],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' },
    },
  },
);
