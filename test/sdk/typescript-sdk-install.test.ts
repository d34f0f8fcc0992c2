// The TypeScript SDK installs on a clean machine: packed from a copy of its folder (its own
// devDependencies standing in for an `npm install` there, offline), installed from the tarball into
// an empty project with `npm install --offline` (it ships built JS and .d.ts, no dependencies),
// and its README example type-checks there as written and runs against a sandbox gateway.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { expectFirstRun, readmeExample, useInstallSandbox, writeCompletedDelivery } from './sdk-install-steps.js';

const run = promisify(execFile);
const ROOT = path.resolve('.');
const SDK = path.join(ROOT, 'sdk', 'typescript');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
// npm without the gateway's own configuration or a user's (a clean machine's defaults).
const npmEnv = { ...process.env, npm_config_userconfig: '/dev/null', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

const sandbox = useInstallSandbox('sdk-ts-install-');

describe('the TypeScript SDK on a clean machine', () => {
  it('packs from a copy of its folder, installs offline from the tarball into an empty project, and its README example type-checks and runs', async () => {
    const { tmp, gw, rx } = sandbox;
    // A copy of the SDK's committed files only (no dist/, no node_modules of a previous build).
    const copy = path.join(tmp, 'sdk');
    const tracked = (await run('git', ['ls-files', '-z', '.'], { cwd: SDK })).stdout.split('\0').filter(Boolean);
    expect(tracked).toContain('package.json');
    for (const f of tracked) {
      await fs.mkdir(path.dirname(path.join(copy, f)), { recursive: true });
      await fs.copyFile(path.join(SDK, f), path.join(copy, f));
    }
    // Its devDependencies (typescript, @types/node), as `npm install` in the copy would bring them.
    await fs.symlink(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    const out = path.join(tmp, 'out');
    await fs.mkdir(out);
    const packed = await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: copy, env: npmEnv, timeout: 120_000 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    const files = info.files.map((f: { path: string }) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/api.gen.js', 'dist/api.gen.d.ts', 'package.json']));
    const manifest = JSON.parse(await fs.readFile(path.join(copy, 'package.json'), 'utf8'));
    // Nothing to fetch and nothing to build on install.
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest.scripts ?? {}).filter((s) => /^(pre|post)?install$|^prepare$/.test(s))).toEqual([]);

    // An empty project installs the tarball with no registry at all.
    const app = path.join(tmp, 'app');
    await fs.mkdir(app);
    await fs.writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'merchant-app', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', path.join(out, info.filename)], { cwd: app, env: npmEnv, timeout: 120_000 });
    const installed = JSON.parse(await fs.readFile(path.join(app, 'node_modules', '@skin-gateway', 'sdk', 'package.json'), 'utf8'));
    expect(installed.name).toBe('@skin-gateway/sdk');
    expect((await fs.readdir(path.join(app, 'node_modules'))).sort()).toEqual(['.package-lock.json', '@skin-gateway']);

    // The README example, as written, type-checks (strict, the SDK's .d.ts checked too) with the
    // gateway's TypeScript; Node's types are the gateway's @types/node.
    await fs.writeFile(path.join(app, 'example.ts'), await readmeExample(SDK, 'ts'));
    await fs.writeFile(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false,
          typeRoots: [path.join(ROOT, 'node_modules', '@types')], types: ['node'],
        },
        files: ['example.ts'],
      }),
    );
    const tsc = await run(process.execPath, [TSC, '-p', app], { cwd: app, timeout: 120_000 }).catch((e) => e);
    expect(tsc.stdout ?? '', 'tsc').toBe('');
    expect(tsc.code ?? 0).toBe(0);

    // It runs against the sandbox gateway.
    const m = await gw.createMerchant({ name: 'README merchant', webhook_url: rx.url('/hook') });
    const env = { ...process.env, GATEWAY_URL: gw.url, GATEWAY_KEY: m.api_key, WEBHOOK_SECRET: m.webhook_secret };
    const first = await run(process.execPath, ['example.js'], { cwd: app, env, timeout: 120_000 });
    const depositId = await expectFirstRun(gw, m, first, 'false');

    // Its webhook handler verifies a real delivery (the module runs again on import: order-1 now meets a 409).
    await writeCompletedDelivery(sandbox, m.api_key, depositId, app);
    const driver = `import fs from 'node:fs'; import { onWebhook } from './example.js';
      const d = JSON.parse(fs.readFileSync('delivery.json', 'utf8'));
      const ev = onWebhook(Buffer.from(d.raw), d.headers);
      console.log('event ' + JSON.stringify({ kind: ev.kind, trade_id: ev.trade_id }));
      try { onWebhook(Buffer.from(d.raw.replace('completed', 'completeD')), d.headers); console.log('forged accepted'); } catch (e) { console.log('forged ' + e.name); }`;
    const second = await run(process.execPath, ['--input-type=module', '-e', driver], { cwd: app, env, timeout: 120_000 });
    expect(second.stdout).toContain('merchant_tx_id already used: adopt the existing deposit');
    expect(JSON.parse(/^event (.*)$/m.exec(second.stdout)![1]!)).toEqual({ kind: 'deposit', trade_id: depositId });
    expect(second.stdout).toMatch(/^forged WebhookVerificationError$/m);
  }, 300_000);
});
