#!/usr/bin/env node
// The `gateway` operator CLI: runs the compiled CLI (dist/cli/index.js), building it first when
// dist/ is missing or older than src/ (see scripts/build.mjs).
import { ensureBuilt } from '../scripts/build.mjs';

await ensureBuilt();
await import('../dist/cli/index.js');
