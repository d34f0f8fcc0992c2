// CPU time of processes counted from /proc (user + system ticks): a number the machine's other
// load disturbs far less than throughput. Used by `npm run bench` (CPU per write, the database's
// share) and bench/cpu-per-request.ts.
import fs from 'node:fs/promises';
import path from 'node:path';

export const TICK_US = 1e6 / 100; // USER_HZ

/** One process's /proc/<pid>/stat: its command name, parent, and CPU ticks (its own, and those of its reaped children). */
export interface ProcStat {
  comm: string;
  ppid: number;
  ticks: number;
  children: number;
}

/** The process's stat, or undefined when it is gone. The command name may hold spaces: fields count from its closing parenthesis. */
export async function readStat(pid: number | string): Promise<ProcStat | undefined> {
  const s = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!s) return undefined;
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { comm: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

/** utime + stime of one process, in ticks (0 when it is gone). */
export async function ticks(pid: number): Promise<number> {
  return (await readStat(pid))?.ticks ?? 0;
}

/** pid and every descendant (the PostgreSQL postmaster and its backends). */
export async function tree(root: number): Promise<number[]> {
  const out = [root];
  for (const d of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const ppid = (await readStat(d))?.ppid;
    if (ppid !== undefined && out.includes(ppid)) out.push(Number(d));
  }
  return out;
}

/** The tree's ticks, with those of exited children (the root's cutime and cstime). */
export async function sumTicks(pids: number[]): Promise<number> {
  let t = 0;
  for (const p of pids) t += await ticks(p);
  return t + ((await readStat(pids[0]!))?.children ?? 0);
}

/** The postmaster of a cluster directory (its postmaster.pid's first line). */
export async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

/** CPU µs used by a process tree since the last call. */
export function cpuMeter(root: number): () => Promise<number> {
  let last: number | undefined;
  return async () => {
    const now = await sumTicks(await tree(root));
    const d = last === undefined ? 0 : now - last;
    last = now;
    return d * TICK_US;
  };
}
