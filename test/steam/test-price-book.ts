// PLATFORM=steam refuses the sandbox book shipped in data/pricebook/ (src/config.ts). The steam
// tests price their items (the sandbox book's names) with a copy of it in the temp directory: the
// same prices, under a path of the tests' own. Made once per content; workers race to rename it in.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SANDBOX_PRICEBOOK_DIR } from '../../src/config.js';

let made: string | undefined;

export function steamTestPriceBook(): string {
  if (made) return made;
  const files = fs.readdirSync(SANDBOX_PRICEBOOK_DIR).sort();
  const hash = crypto.createHash('sha256');
  for (const f of files) hash.update(f).update(fs.readFileSync(path.join(SANDBOX_PRICEBOOK_DIR, f)));
  const dir = path.join(os.tmpdir(), `gateway-test-pricebook-${hash.digest('hex').slice(0, 16)}`);
  if (!fs.existsSync(dir)) {
    const tmp = `${dir}.${process.pid}`;
    fs.cpSync(SANDBOX_PRICEBOOK_DIR, tmp, { recursive: true });
    try {
      fs.renameSync(tmp, dir);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // another worker's copy is in place
    }
  }
  made = dir;
  return dir;
}
