#!/usr/bin/env node
// The `gateway` operator CLI: runs src/cli/index.ts through tsx (no build step).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const tsxCli = require.resolve('tsx/cli');
const entry = path.join(here, '..', 'src', 'cli', 'index.ts');
const r = spawnSync(process.execPath, [tsxCli, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);
