// What the README and docs say about the start and CLI commands, checked on the commands as shown:
// `node bin/start.mjs` writes JSON from its first stdout line and exits 0 on SIGTERM; `npm start`
// puts npm's banner first (`--silent` leaves it out) and otherwise behaves as `node bin/start.mjs`:
// a Ctrl-C (which reaches the gateway twice, from the terminal and forwarded by npm) stops it
// cleanly, a SIGTERM sent to npm's own process reaches the gateway and stops it cleanly, and npm
// exits 0 after either; every `node bin/gateway.mjs …` line of the docs names a command the CLI has.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded.js';
import { eventually } from '../helpers.js';

const run = promisify(execFile);
let dataDir: string;
const started: ChildProcess[] = [];

// The environment of a user's shell: none of the npm_* variables of the npm that runs the tests.
const userEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gateway-claims-'));
});
afterAll(async () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) try { process.kill(-c.pid!, 'SIGKILL'); } catch { /* gone */ }
  // The gateway stops its embedded PostgreSQL on SIGTERM: wait for its pid file to go before removing the folder.
  if (dataDir) {
    await eventually(async () => (await fs.access(path.join(dataDir, 'pg', 'postmaster.pid')).then(() => false, () => true)) || undefined, 60_000).catch(() => undefined);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
});

interface Started {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  output: () => string;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** Starts `cmd` in a process group of its own (as a shell runs a foreground job) and waits for /readyz. */
async function start(cmd: string, args: string[]): Promise<Started> {
  const port = await freePort();
  const child = spawn(cmd, args, {
    detached: true,
    env: { ...userEnv(), DATA_DIR: dataDir, PORT: String(port), SANDBOX_CATALOGUE_SIZE: '50', DATABASE_URL: '', ADMIN_TOKEN: '', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let output = '';
  child.stdout!.on('data', (d) => ((stdout += d), (output += d)));
  child.stderr!.on('data', (d) => (output += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, output })),
  );
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}:\n${output}`);
    return (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false)) || undefined;
  }, 120_000);
  return { child, port, stdout: () => stdout, output: () => output, ended };
}

describe('the start commands as the docs show them', () => {
  it('node bin/start.mjs: JSON from the first stdout line; SIGTERM stops it cleanly with exit code 0', async () => {
    const g = await start(process.execPath, ['bin/start.mjs']);
    const first = g.stdout().split('\n')[0]!;
    expect(JSON.parse(first)).toMatchObject({ msg: expect.any(String) });
    g.child.kill('SIGTERM');
    const end = await g.ended;
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.output).toContain('stopped cleanly');
    for (const line of g.stdout().split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
  }, 240_000);

  it('npm start: npm\'s banner first on stdout; a Ctrl-C stops the gateway cleanly, then npm exits 0', async () => {
    const g = await start('npm', ['start']);
    const lines = g.stdout().split('\n');
    expect(lines.slice(0, 4)).toEqual(['', '> skin-trading-gateway@0.1.0 start', '> exec node bin/start.mjs', '']);
    expect(() => JSON.parse(lines[4]!)).not.toThrow();
    process.kill(-g.child.pid!, 'SIGINT'); // what a terminal's Ctrl-C does: the whole foreground group
    const end = await g.ended;
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.output).toContain('stopped cleanly'); // before npm ended
    // npm forwarded the Ctrl-C too: the gateway took it for the same request, not a second one
    expect(end.output).not.toContain('second signal');
  }, 240_000);

  it('npm start --silent: no banner, JSON from the first stdout line; SIGTERM to npm\'s own process stops the gateway cleanly, then npm exits 0', async () => {
    const g = await start('npm', ['start', '--silent']);
    expect(() => JSON.parse(g.stdout().split('\n')[0]!)).not.toThrow();
    g.child.kill('SIGTERM'); // npm's process only, as `kill <npm's pid>` (or `docker stop`) would
    const end = await g.ended;
    expect(end).toMatchObject({ code: 0, signal: null });
    expect(end.output).toContain('SIGTERM: stopping the gateway');
    expect(end.output).toContain('stopped cleanly');
    // nothing of the gateway is left in the group npm ran it in
    const left = (await run('ps', ['-o', 'pid=,args=', '-g', String(g.child.pid)]).catch((e) => e)).stdout.split('\n').filter((l: string) => l.includes('bin/start.mjs'));
    expect(left).toEqual([]);
  }, 240_000);
});

describe('the CLI lines of the docs', () => {
  it('every `node bin/gateway.mjs <command>` shown in README.md and docs/ is a command of the CLI', async () => {
    const files = ['README.md', ...(await fs.readdir('docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];
    const commands = new Set<string>();
    for (const f of files) {
      const text = await fs.readFile(f, 'utf8');
      for (const m of text.matchAll(/node bin\/gateway\.mjs((?: [a-z][a-z-]*){1,2})/g)) commands.add(m[1]!.trim());
    }
    expect(commands.size).toBeGreaterThan(10);
    for (const c of commands) {
      const words = c.split(' ');
      const r = await run(process.execPath, ['bin/gateway.mjs', ...words, '--help']).catch((e) => e);
      expect(r.code ?? 0, c).toBe(0);
      // commander prints the usage of the deepest command it recognised: the words shown must be it
      const usage = /^Usage: gateway (.*)$/m.exec(r.stdout)![1]!;
      const known = usage.split(' ').filter((w: string) => /^[a-z][a-z-]*$/.test(w));
      expect(words.slice(0, known.length).join(' '), c).toBe(known.join(' '));
      expect(known.length, c).toBeGreaterThan(0);
      // a command with subcommands must have been named in full (a wrong second word would land here)
      if (usage.includes('[command]')) expect(known.join(' '), c).toBe(words.join(' '));
    }
  }, 120_000);
});
