import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
    exclude: ['node_modules', 'out', 'e2e'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    environment: 'node',
  },
});
