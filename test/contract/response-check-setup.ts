// Runs in every test file (vitest setupFiles): the file fails when any answer of its gateways did
// not match the OpenAPI document (see response-check.ts).
import { afterAll } from 'vitest';
import { takeViolations } from './response-check.js';

afterAll(() => {
  const found = [...new Set(takeViolations())];
  if (found.length > 0) throw new Error(`answers that do not match the OpenAPI document:\n${found.join('\n')}`);
});
