// The price book: entries by game and name (phase-aware lookups), loaded from a directory, a file
// or an http(s) URL. The formats and their validation are in pricebook-parse.ts.
import type { Stats } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { GAMES, isGame, type Game } from '../../domain/games.js';
import { unphasedName } from '../../domain/phases.js';
import { PriceBookError, parsePriceBook, type PriceBookEntry, type PriceBookFormat } from './pricebook-parse.js';

export * from './pricebook-parse.js';

/** The shipped sandbox book (its one definition is the settings', which refuse it on the steam platform). */
export { SANDBOX_PRICEBOOK_DIR } from '../../config.js';

// ---------------------------------------------------------------------------------------------
// The book
// ---------------------------------------------------------------------------------------------

function phaseKey(name: string, phase: string): string {
  return `${name}\u0000${phase}`;
}

export class PriceBook {
  private readonly byGame = new Map<Game, Map<string, PriceBookEntry>>();
  private readonly byPhase = new Map<Game, Map<string, PriceBookEntry>>();
  private readonly phased = new Map<Game, Set<string>>();

  constructor(entries: Iterable<PriceBookEntry> = []) {
    for (const g of GAMES) {
      this.byGame.set(g, new Map());
      this.byPhase.set(g, new Map());
      this.phased.set(g, new Set());
    }
    for (const e of entries) this.add(e);
  }

  /** Adds entries (a book handed over in slices: sources/book-off-thread.ts); a repeated name is an error. */
  addAll(entries: Iterable<PriceBookEntry>): void {
    for (const e of entries) this.add(e);
  }

  /** Adds an entry; a second entry with the same game and name is an error. */
  private add(e: PriceBookEntry): void {
    const names = this.byGame.get(e.game);
    if (!names) throw new PriceBookError(`unknown game ${JSON.stringify(e.game)}`);
    if (names.has(e.market_hash_name)) {
      throw new PriceBookError(`duplicate price book entry for ${e.game} ${JSON.stringify(e.market_hash_name)}`);
    }
    names.set(e.market_hash_name, e);
    const base = unphasedName(e.market_hash_name, e.phase);
    if (base !== undefined) {
      this.byPhase.get(e.game)!.set(phaseKey(base, e.phase!), e);
      this.phased.get(e.game)!.add(base);
    }
  }

  /** Whether the book prices this market hash name per phase ("<name> - <phase>" entries). */
  pricedByPhase(game: Game, name: string): boolean {
    return this.phased.get(game)?.has(name) ?? false;
  }

  /**
   * Entry for a market hash name. With a phase ("Phase 2", "Ruby", …) the per-phase entry
   * "<name> - <phase>" is preferred, falling back to the plain name.
   */
  get(game: Game, name: string, phase?: string): PriceBookEntry | undefined {
    if (phase) {
      const hit = this.byPhase.get(game)?.get(phaseKey(name, phase));
      if (hit) return hit;
    }
    return this.byGame.get(game)?.get(name);
  }

  has(game: Game, name: string): boolean {
    return this.byGame.get(game)?.has(name) ?? false;
  }

  /** Entries of one game, in load order. */
  list(game: Game): PriceBookEntry[] {
    return [...(this.byGame.get(game)?.values() ?? [])];
  }

  size(game: Game): number {
    return this.byGame.get(game)?.size ?? 0;
  }

  get totalSize(): number {
    let n = 0;
    for (const m of this.byGame.values()) n += m.size;
    return n;
  }

  /** Games with at least one entry. */
  games(): Game[] {
    return GAMES.filter((g) => this.size(g) > 0);
  }

  static fromText(text: string, format: PriceBookFormat, game?: Game): PriceBook {
    return new PriceBook(parsePriceBook(text, format, game));
  }

  /**
   * Loads a price book from
   *  - a directory: every <game>.json / <game>.csv in it (rows default to the file's game),
   *  - a single .json / .csv file (rows default to the game named by the file, e.g. tf2.csv, else must carry one),
   *  - an http(s) URL (format from Content-Type, else from the path's extension; game from the path's file name).
   */
  static async load(source: string): Promise<PriceBook> {
    if (/^https?:\/\//i.test(source)) {
      const [text, format, game] = await fetchSource(source);
      try {
        return PriceBook.fromText(text, format, game);
      } catch (err) {
        throw withSource(err, source);
      }
    }
    let info: Stats;
    try {
      info = await stat(source);
    } catch (err) {
      throw new PriceBookError(`price book source not found: ${source} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (info.isDirectory()) return loadDirectory(source);
    const text = await readFile(source, 'utf8');
    const format = formatFromExtension(source) ?? sniffFormat(text);
    try {
      return PriceBook.fromText(text, format, gameFromPath(source));
    } catch (err) {
      throw withSource(err, source);
    }
  }
}

function withSource(err: unknown, source: string): unknown {
  if (err instanceof PriceBookError) return new PriceBookError(`${source}: ${err.message}`, err.issues);
  return err;
}

function formatFromExtension(path: string): PriceBookFormat | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.csv') return 'csv';
  return undefined;
}

function sniffFormat(text: string): PriceBookFormat {
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  return first === '[' ? 'json' : 'csv';
}

function gameFromPath(path: string): Game | undefined {
  const stem = basename(path, extname(path)).toLowerCase();
  return isGame(stem) ? stem : undefined;
}

async function loadDirectory(dir: string): Promise<PriceBook> {
  const files = new Set(await readdir(dir));
  const entries: PriceBookEntry[] = [];
  let found = 0;
  for (const game of GAMES) {
    for (const format of ['json', 'csv'] as const) {
      const file = `${game}.${format}`;
      if (!files.has(file)) continue;
      found++;
      const path = join(dir, file);
      try {
        entries.push(...parsePriceBook(await readFile(path, 'utf8'), format, game));
      } catch (err) {
        throw withSource(err, path);
      }
    }
  }
  if (found === 0) {
    throw new PriceBookError(`no price book files in ${dir} (expected ${GAMES.map((g) => `${g}.json or ${g}.csv`).join(', ')})`);
  }
  return new PriceBook(entries);
}

async function fetchSource(url: string): Promise<[string, PriceBookFormat, Game | undefined]> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(30_000), headers: { accept: 'application/json, text/csv;q=0.9, */*;q=0.1' } });
  } catch (err) {
    throw new PriceBookError(`could not fetch price book ${url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new PriceBookError(`could not fetch price book ${url}: HTTP ${res.status}`);
  const path = new URL(url).pathname;
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  let format: PriceBookFormat | undefined;
  if (contentType === 'application/json' || contentType === 'text/json' || contentType.endsWith('+json')) format = 'json';
  else if (contentType === 'text/csv' || contentType === 'application/csv' || contentType === 'text/comma-separated-values') format = 'csv';
  format ??= formatFromExtension(path) ?? sniffFormat(text);
  return [text, format, gameFromPath(decodeURIComponent(path))];
}
