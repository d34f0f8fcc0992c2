// Bulk listing import (`gateway catalogue import FILE`): JSON lines or CSV, streamed from disk and
// written in batches of BATCH_SIZE rows per INSERT … ON CONFLICT, so a 500 000-line file needs
// neither the file nor the rows in memory. The catalogue answers 503 (rebuild lease) meanwhile.
//
// Row fields (JSON keys or CSV header names, any order; unknown ones ignored):
//   id (required: lowercase hex or digits, ≤ 300 chars), game (required), name (required),
//   price (required, USD, ≤ 3 decimals) — the base price, before each merchant's purchase_markup,
//   image_url, exterior, rarity, rarity_color, class_id, instance_id, inspect_url, phase.
// asset_id, float and paint_seed are derived from inspect_url (parseInspectLink), never taken
// from the file. A known ID updates that listing if it is live (re-pricing); reserved or sold
// listings are left alone. Bad rows are skipped and reported with their line number — including a
// NUL character (U+0000) in any field, which PostgreSQL text cannot store (it would fail the whole
// 1000-row batch, and so the import, mid-way).
import fs from 'node:fs';
import readline from 'node:readline';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.js';
import { isGame } from '../../domain/games.js';
import { parseInspectLink } from '../../domain/inspect-link.js';
import { AppError, isAppError } from '../../domain/errors.js';
import { exactNumber, MoneyError, usdToMills } from '../../domain/money.js';
import { LISTING_ID_RE, upsertListings, type ListingInput } from './catalogue-repo.js';
import { BATCH_SIZE, type CatalogueWrites } from './writes.js';

export interface ImportProgress {
  /** Data rows read so far (not counting a CSV header). */
  rows: number;
  /** Rows inserted or changed. */
  written: number;
  /** Valid rows that changed nothing (same data, or a listing that is reserved/sold). */
  unchanged: number;
  skipped: number;
  bytesRead: number;
  totalBytes: number;
}

export interface ImportResult extends ImportProgress {
  format: 'jsonl' | 'csv';
  /** The first MAX_REPORTED_ERRORS problems, with 1-based line numbers. */
  errors: Array<{ line: number; message: string }>;
}

export interface ImportContext {
  db: Db;
  catalogue: Pick<CatalogueWrites, 'withRebuild'>;
  log?: Logger;
}

const MAX_REPORTED_ERRORS = 50;

/** A record the import skips: its reason goes to the report (a 'validation' AppError). */
const rowError = (message: string) => new AppError('validation', message);

function optString(v: unknown, field: string, max = 2048): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' && typeof v !== 'number') throw rowError(`${field} must be a string`);
  const s = String(v);
  if (s.length > max) throw rowError(`${field} is longer than ${max} characters`);
  if (s.includes('\u0000')) throw rowError(`${field} contains a NUL character (U+0000)`);
  return s;
}

function optInt(v: unknown, field: string): number | null {
  if (v === undefined || v === null || v === '') return null;
  const n = typeof v === 'number' ? v : /^\d{1,16}$/.test(String(v).trim()) ? Number(String(v).trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw rowError(`${field} must be a non-negative integer`);
  return n;
}

/** One raw record (JSON object or CSV row as an object) → a listing, or a rowError. */
export function toListing(raw: Record<string, unknown>): ListingInput {
  const id = typeof raw.id === 'number' ? String(raw.id) : raw.id;
  if (typeof id !== 'string' || !LISTING_ID_RE.test(id)) throw rowError('id must be lowercase hex or digits, 1 to 300 characters');
  if (!isGame(raw.game)) throw rowError('game must be one of csgo, rust, dota2, tf2');
  const name = optString(raw.name, 'name', 512);
  if (!name) throw rowError('name is required');
  // A text price is decided on its digits (never rounded); 0 would make purchases of amount 0.
  const priceRaw = typeof raw.price === 'string' && raw.price.trim() !== '' ? exactNumber(raw.price) : raw.price;
  if (typeof priceRaw !== 'number' || !(priceRaw > 0)) throw rowError('price must be a positive number (USD) with at most 3 decimals');
  let basePrice: number;
  try {
    basePrice = usdToMills(priceRaw);
  } catch (err) {
    if (err instanceof MoneyError) throw rowError(`price: ${err.message}`);
    throw err;
  }
  const inspectUrl = optString(raw.inspect_url, 'inspect_url', 4096);
  const derived = parseInspectLink(inspectUrl);
  return {
    id,
    game: raw.game,
    name,
    base_price: basePrice,
    image_url: optString(raw.image_url, 'image_url') ?? '',
    exterior: optString(raw.exterior, 'exterior', 100),
    rarity: optString(raw.rarity, 'rarity', 100),
    rarity_color: optString(raw.rarity_color, 'rarity_color', 32),
    class_id: optInt(raw.class_id, 'class_id'),
    instance_id: optInt(raw.instance_id, 'instance_id'),
    inspect_url: inspectUrl,
    asset_id: derived.asset_id ?? null,
    float: derived.float ?? null,
    paint_seed: derived.paint_seed ?? null,
    phase: optString(raw.phase, 'phase', 100),
    source: 'import',
    source_ref: null,
  };
}

/** RFC 4180 fields of one record; `carry` holds an unfinished quoted field across lines. */
export function parseCsvRecord(text: string): { fields: string[]; complete: boolean } {
  const fields: string[] = [];
  let field = '';
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else field += c;
    } else if (c === '"' && field === '') inQuotes = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return { fields, complete: !inQuotes };
}

function detectFormat(filePath: string): 'jsonl' | 'csv' {
  return /\.csv$/i.test(filePath) ? 'csv' : 'jsonl';
}

/**
 * Imports a listing file. `onProgress` is called after every batch (and once at the end) — the
 * CLI draws its progress bar from bytesRead / totalBytes.
 */
export async function importListings(
  ctx: ImportContext,
  filePath: string,
  onProgress?: (p: ImportProgress) => void,
  opts: { batchSize?: number; rebuild?: boolean } = {},
): Promise<ImportResult> {
  const batchSize = Math.min(Math.max(opts.batchSize ?? BATCH_SIZE, 1), BATCH_SIZE);
  const totalBytes = (await fs.promises.stat(filePath)).size;
  const format = detectFormat(filePath);
  const result: ImportResult = { format, rows: 0, written: 0, unchanged: 0, skipped: 0, bytesRead: 0, totalBytes, errors: [] };
  const report = (line: number, message: string) => {
    result.skipped++;
    if (result.errors.length < MAX_REPORTED_ERRORS) result.errors.push({ line, message });
  };

  const run = async (touch: () => Promise<void>) => {
    const stream = fs.createReadStream(filePath);
    stream.on('data', (chunk) => {
      result.bytesRead += chunk.length;
    });
    const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
    // A batch keeps the last row per ID: one INSERT … ON CONFLICT cannot touch a row twice.
    let batch = new Map<string, ListingInput>();
    const flush = async () => {
      if (batch.size === 0) return;
      const rows = [...batch.values()];
      batch = new Map();
      const n = await upsertListings(ctx.db, rows);
      result.written += n;
      result.unchanged += rows.length - n;
      await touch();
      onProgress?.({ ...result, bytesRead: Math.min(result.bytesRead, totalBytes) });
    };

    let lineNo = 0;
    let header: string[] | undefined;
    let pending = '';
    let pendingStart = 0;
    for await (const line of lines) {
      lineNo++;
      let raw: Record<string, unknown> | undefined;
      let recordLine = lineNo;
      if (format === 'csv') {
        const text = pending ? `${pending}\n${line}` : line;
        if (pending) recordLine = pendingStart;
        const parsed = parseCsvRecord(text);
        if (!parsed.complete) {
          if (!pending) pendingStart = lineNo;
          pending = text;
          continue;
        }
        pending = '';
        if (!header) {
          header = parsed.fields.map((h) => h.trim().replace(/^\uFEFF/, '').toLowerCase());
          if (!header.includes('id')) throw new Error(`${filePath}: the CSV header must name the columns (id, game, name, price, …)`);
          continue;
        }
        if (text.trim() === '') continue;
        raw = {};
        for (let i = 0; i < header.length; i++) raw[header[i]] = parsed.fields[i];
      } else {
        const t = line.trim();
        if (t === '') continue;
        try {
          const v = JSON.parse(t);
          if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new SyntaxError('not an object');
          raw = v as Record<string, unknown>;
        } catch {
          result.rows++;
          report(recordLine, 'not a JSON object');
          continue;
        }
      }
      result.rows++;
      try {
        const l = toListing(raw);
        batch.delete(l.id);
        batch.set(l.id, l);
      } catch (err) {
        if (!isAppError(err, 'validation')) throw err;
        report(recordLine, err.message);
        continue;
      }
      if (batch.size >= batchSize) await flush();
    }
    if (pending) report(pendingStart, 'unterminated quoted field');
    await flush();
    result.bytesRead = totalBytes;
    onProgress?.({ ...result });
  };

  if (opts.rebuild === false) await run(async () => {});
  else await ctx.catalogue.withRebuild('import', run);
  ctx.log?.info({ file: filePath, rows: result.rows, written: result.written, skipped: result.skipped }, 'catalogue import finished');
  return result;
}
