// The Python SDK installs on a clean machine: `pip install sdk/python` into a fresh virtual
// environment with no package index at all (its build backend is its own, standard library only),
// and `pip wheel` too, leave the SDK's folder exactly as they found it; then its README example,
// as written, runs from the installed package against a sandbox gateway.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { expectFirstRun, readmeExample, useInstallSandbox, writeCompletedDelivery } from './sdk-install-steps.js';

const run = promisify(execFile);
const SDK = path.resolve('sdk/python');

const sandbox = useInstallSandbox('sdk-py-install-');

/** Every file and folder under `dir`, relative, sorted. */
async function listing(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.relative(dir, path.join(e.parentPath, e.name)) + (e.isDirectory() ? '/' : '')).sort();
}

describe('the Python SDK on a clean machine', () => {
  it('pip installs it into a fresh venv with no index, leaving its folder unchanged, and its README example runs from the install', async () => {
    const { tmp, gw, rx } = sandbox;
    const before = await listing(SDK);
    expect(before).toContain('pyproject.toml');

    const venv = path.join(tmp, 'venv');
    await run('python3', ['-m', 'venv', venv], { timeout: 120_000 });
    const py = path.join(venv, 'bin', 'python');
    // No index: nothing may be fetched to build or install it.
    const pipEnv = { ...process.env, PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_CACHE_DIR: '1' };
    await run(py, ['-m', 'pip', 'install', SDK], { env: pipEnv, timeout: 180_000 });
    const wheels = path.join(tmp, 'wheels');
    await run(py, ['-m', 'pip', 'wheel', '-w', wheels, SDK], { env: pipEnv, timeout: 180_000 });
    const [wheel, ...others] = await fs.readdir(wheels);
    expect(others).toEqual([]);
    expect(wheel).toBe('skin_gateway-1.0.0-py3-none-any.whl');
    const inWheel = (await run(py, ['-c', 'import sys, zipfile; print("\\n".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))', path.join(wheels, wheel!)])).stdout.trim().split('\n');
    expect(inWheel).toEqual([
      'skin_gateway-1.0.0.dist-info/METADATA',
      'skin_gateway-1.0.0.dist-info/RECORD',
      'skin_gateway-1.0.0.dist-info/WHEEL',
      'skin_gateway-1.0.0.dist-info/top_level.txt',
      'skin_gateway/__init__.py',
      'skin_gateway/operations.py',
    ]);

    // Nothing was left in the SDK's folder (no build/, no *.egg-info/, nothing else).
    expect(await listing(SDK)).toEqual(before);

    // The README's python block, as written, in a project of its own, against the installed package.
    const app = path.join(tmp, 'app');
    await fs.mkdir(app);
    await fs.writeFile(path.join(app, 'example.py'), await readmeExample(SDK, 'python'));
    const m = await gw.createMerchant({ name: 'README merchant', webhook_url: rx.url('/hook') });
    const env = { ...process.env, GATEWAY_URL: gw.url, GATEWAY_KEY: m.api_key, WEBHOOK_SECRET: m.webhook_secret, PYTHONDONTWRITEBYTECODE: '1' };
    const first = await run(py, ['example.py'], { cwd: app, env, timeout: 120_000 });
    const depositId = await expectFirstRun(gw, m, first, 'False');

    // Its webhook handler verifies a real delivery (the module runs again on import: order-1 now meets a 409).
    await writeCompletedDelivery(sandbox, m.api_key, depositId, app);
    const driver = [
      'import json, skin_gateway, example',
      'd = json.load(open("delivery.json"))',
      'ev = example.on_webhook(d["raw"].encode(), d["headers"])',
      'print("event", json.dumps({"kind": ev["kind"], "trade_id": ev["trade_id"]}))',
      'print("from", skin_gateway.__file__)',
      'try:',
      '    example.on_webhook(d["raw"].replace("completed", "completeD").encode(), d["headers"]); print("forged accepted")',
      'except skin_gateway.WebhookVerificationError:',
      '    print("forged refused")',
    ].join('\n');
    const second = await run(py, ['-c', driver], { cwd: app, env, timeout: 120_000 });
    expect(second.stdout).toContain('merchant_tx_id already used: adopt the existing deposit');
    expect(JSON.parse(/^event (.*)$/m.exec(second.stdout)![1]!)).toEqual({ kind: 'deposit', trade_id: depositId });
    expect(/^from (.*)$/m.exec(second.stdout)![1]!.startsWith(venv)).toBe(true); // the installed copy, not the source
    expect(second.stdout).toMatch(/^forged refused$/m);

    expect(await listing(SDK)).toEqual(before);
  }, 300_000);
});
