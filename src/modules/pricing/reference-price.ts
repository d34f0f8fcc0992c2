// The reference price of one item: pure, no I/O. Given the latest reading of each source,
// the rules (settings), what the item was last priced at and an operator override, it says what a
// deposit is credited (base, before the merchant's multiplier), the floor a sale may not go under,
// and why (flags, the sources used and left out). The engine (price-engine.ts) calls it when
// readings arrive or expire, never per request.

export type SourceRole = 'market' | 'guard';

export interface Reading {
  source: string;
  role: SourceRole;
  /** mills */
  price: number;
  /** ms since the epoch: when the source says (or we saw) this price */
  asOf: number;
  /** listings or sales volume; undefined: the source gives none (own book) and counts as liquid */
  liquidity?: number;
}

export interface PriceRules {
  /** a reading older than this is stale (per item) */
  maxAgeMs: number;
  /** a reading with fewer listings / sales than this is illiquid */
  minLiquidity: number;
  /** fewer fresh, liquid, agreeing market sources than this: not accepted for deposits */
  minSources: number;
  /** a source more than this ratio (≥ 1) away from the median of the others is an outlier */
  outlierRatio: number;
  /** a reference more than this ratio (≥ 1) away from the last good one is a jump */
  jumpRatio: number;
}

export interface Override {
  action: 'pin' | 'block';
  /** mills; pins only */
  price?: number;
}

/** What the item carried from its previous computation. */
export interface Prior {
  lastGood?: number;
  /** a jump waiting for a second reading (newer than asOf) or an operator's confirmation */
  pending?: { price: number; asOf: number };
}

export type Flag = 'outlier' | 'jump' | 'too_few_sources' | 'stale' | 'illiquid' | 'guard' | 'pinned' | 'blocked';

export interface Basis {
  /** median of the used sources (mills); undefined when too few */
  reference?: number;
  /** base price a deposit is credited at; undefined: not accepted (left out like an unpriced item) */
  deposit?: number;
  /** the price catalogue sales may not go under; undefined: unpriced */
  sale?: number;
  flags: Flag[];
  used: string[];
  outliers: string[];
  stale: string[];
  illiquid: string[];
  next: Prior;
  /** ms: when this basis must be computed again though no reading came (a used reading goes stale) */
  expiresAt: number;
}

/** max(a, b) / min(a, b); Infinity when one is 0 and the other not. */
export function ratioBetween(a: number, b: number): number {
  if (a === b) return 1;
  const lo = Math.min(a, b);
  return lo <= 0 ? Infinity : Math.max(a, b) / lo;
}

/** Median in integer mills: the middle one, or the rounded mean of the middle two. */
export function median(values: readonly number[]): number {
  return medianSorting([...values]);
}

/**
 * median() of an array the caller owns, sorted in place by insertion: a few sources' prices, and
 * Array.prototype.sort allocates a work copy of its own (1.1 GB over a bench of 100 000 items a game).
 */
function medianSorting(s: number[]): number {
  for (let i = 1; i < s.length; i++) {
    const v = s[i]!;
    let j = i - 1;
    while (j >= 0 && s[j]! > v) {
      s[j + 1] = s[j]!;
      j--;
    }
    s[j + 1] = v;
  }
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * Runs for every item a refresh touches (400 000 and more): it allocates only what the basis keeps
 * (its lists, flags and prior), since its garbage was half of a refresh's allocations and the
 * collector's pauses grew with it.
 */
export function referencePrice(readings: Iterable<Reading>, rules: PriceRules, prior: Prior, now: number, override?: Override): Basis {
  if (override?.action === 'block') return { used: [], outliers: [], stale: [], illiquid: [], flags: ['blocked'], next: prior, expiresAt: NEVER };
  if (override?.action === 'pin' && override.price !== undefined) {
    const p = override.price;
    // The sources' history is kept: once unpinned, the item is judged against its own last good price.
    return { used: [], outliers: [], stale: [], illiquid: [], reference: p, deposit: p, sale: p, flags: ['pinned'], next: prior, expiresAt: NEVER };
  }

  const flags: Flag[] = [];
  const stale: string[] = [];
  const illiquid: string[] = [];
  const candidates: Reading[] = [];
  const guards: Reading[] = [];
  let expiresAt = NEVER;
  for (const r of readings) {
    if (now - r.asOf > rules.maxAgeMs) {
      stale.push(r.source);
      continue;
    }
    if (r.liquidity !== undefined && r.liquidity < rules.minLiquidity) {
      illiquid.push(r.source);
      continue;
    }
    if (r.role === 'guard') guards.push(r);
    else candidates.push(r);
    expiresAt = Math.min(expiresAt, r.asOf + rules.maxAgeMs + 1);
  }
  if (stale.length) flags.push('stale');
  if (illiquid.length) flags.push('illiquid');

  // Outliers: from three sources on, each against the median of all (one far-off source cannot
  // move a median); two that disagree cannot tell which one is wrong: both are left out.
  const outliers: string[] = [];
  if (candidates.length === 2 && ratioBetween(candidates[0]!.price, candidates[1]!.price) > rules.outlierRatio) {
    outliers.push(candidates[0]!.source, candidates[1]!.source);
  } else if (candidates.length >= 3) {
    const mid = medianSorting(candidates.map((r) => r.price));
    for (const r of candidates) if (ratioBetween(r.price, mid) > rules.outlierRatio) outliers.push(r.source);
  }
  if (outliers.length) flags.push('outlier');
  const used = outliers.length ? candidates.filter((r) => !outliers.includes(r.source)) : candidates;
  const usedSources = used.map((r) => r.source);

  if (used.length === 0 || used.length < rules.minSources) {
    flags.push('too_few_sources');
    // Not accepted for deposits; not sold below the last good price.
    return { used: usedSources, outliers, stale, illiquid, expiresAt, flags, sale: prior.lastGood, next: prior };
  }
  const reference = used.length === 1 ? used[0]!.price : medianSorting(used.map((r) => r.price));

  // The Steam Market guard: a reference well above Steam's own price is not credited.
  let accepted = true;
  for (const g of guards) {
    if (reference > g.price && ratioBetween(reference, g.price) > rules.outlierRatio) {
      if (accepted) flags.push('guard');
      accepted = false;
    }
  }

  const last = prior.lastGood;
  if (last !== undefined && ratioBetween(reference, last) > rules.jumpRatio) {
    let newest = -Infinity;
    for (const r of used) if (r.asOf > newest) newest = r.asOf;
    const p = prior.pending;
    const sameWay = p !== undefined && reference > last === p.price > last && ratioBetween(p.price, last) > rules.jumpRatio;
    if (!(sameWay && newest > p!.asOf)) {
      // Held: a rise is credited at the old price, a fall at the new one (never above either).
      flags.push('jump');
      const pending = sameWay ? p! : { price: reference, asOf: newest };
      return {
        used: usedSources,
        outliers,
        stale,
        illiquid,
        expiresAt,
        reference,
        deposit: accepted ? Math.min(reference, last) : undefined,
        sale: Math.max(reference, last),
        flags,
        next: { lastGood: last, pending },
      };
    }
    // A second, newer reading confirms the jump.
  }
  return { used: usedSources, outliers, stale, illiquid, expiresAt, reference, deposit: accepted ? reference : undefined, sale: reference, flags, next: accepted ? { lastGood: reference } : prior };
}
