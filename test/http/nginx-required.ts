import { describe, it } from 'vitest';
import { findNginx } from './nginx-server.js';

/**
 * The nginx binary for a test file, or null. When it is missing and `CI=true`, registers a test
 * that fails (CI must not pass by skipping); otherwise warns once with the reason.
 */
export function nginxForTests(): string | null {
  const nginx = findNginx();
  if (nginx) return nginx;
  if (process.env.CI === 'true') {
    describe('nginx', () => {
      it('is installed (required when CI=true)', () => {
        throw new Error(
          'nginx is not installed: apt-get install -y nginx (the web crawl tests need a real nginx)',
        );
      });
    });
  } else {
    console.warn('skipping nginx web crawl tests: nginx is not installed (apt-get install -y nginx)');
  }
  return null;
}
