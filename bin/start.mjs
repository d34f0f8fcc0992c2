#!/usr/bin/env node
// `npm start`: runs the compiled gateway (dist/main.js), building it first when dist/ is missing or
// older than src/ (see scripts/build.mjs).
import { ensureBuilt } from '../scripts/build.mjs';

await ensureBuilt();
await import('../dist/main.js');
