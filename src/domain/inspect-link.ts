/**
 * CS2 inspect links: derive asset id / float / paint seed from a link, and build
 * test links. Pure: no I/O. Callers store and pass the link itself untouched.
 *
 * Two link generations exist:
 *  - classic: `steam://rungame/730/<any>/+csgo_econ_action_preview%20S<owner>A<asset>D<d>`
 *    (or `M<listingid>A<asset>D<d>` for market listings). Only the asset id is derivable.
 *  - CS2 self-contained: `...csgo_econ_action_preview%20<HEX>` where HEX is a serialized
 *    CEconItemPreviewDataBlock, either "wrapped" (leading 00 byte + CRC) or XOR-"masked"
 *    (the form Steam itself emits). Decoded with @csfloat/cs2-inspect-serializer.
 */
import { decodeHex, generateHex, previewLink } from '@csfloat/cs2-inspect-serializer';

export interface InspectLinkFields {
  asset_id?: string;
  float?: number;
  paint_seed?: number;
}

export interface Cs2InspectFields {
  defindex: number;
  paintindex: number;
  paintseed: number;
  /** The wear as a float in [0, 1] (not the raw uint32 bits). */
  paintwear: number;
  itemid?: string;
  rarity?: number;
}

/** Longer inputs are rejected outright; real links are a few hundred chars at most. */
const MAX_LINK_LENGTH = 4096;
const UINT64_MAX = (1n << 64n) - 1n;

/**
 * Optional `steam://run(game)/730/<owner-or-empty>/` prefix, optional `+`, the preview command,
 * then a separator (`%20`, whitespace, or `+` as in form-encoding) and the payload.
 */
const LINK_RE =
  /^(?:steam:\/\/(?:rungame|run)\/730\/\d*\/+)?\+?csgo_econ_action_preview(?:%20|\s|\+)+([^\s%+]+)\s*$/i;
const CLASSIC_PAYLOAD_RE = /^[SM](\d{1,20})A(\d{1,20})D(\d{1,32})$/i;
const HEX_PAYLOAD_RE = /^(?:[0-9a-f]{2})+$/i;

/** Canonical decimal string of a positive uint64, or undefined for zero / out of range / junk. */
function positiveUint64(value: unknown): string | undefined {
  if (typeof value !== 'bigint' && typeof value !== 'string' && typeof value !== 'number') {
    return undefined;
  }
  const text = String(value);
  if (!/^\d{1,20}$/.test(text)) return undefined;
  const n = BigInt(text);
  return n > 0n && n <= UINT64_MAX ? n.toString() : undefined;
}

function parseCs2Payload(hex: string): InspectLinkFields {
  // decodeHex validates the CRC for wrapped payloads and field presence for masked ones,
  // and throws on anything it does not like; the caller catches.
  const econ = decodeHex(hex);
  const out: InspectLinkFields = {};

  const assetId = positiveUint64(econ.itemid);
  if (assetId !== undefined) out.asset_id = assetId;

  // Unpainted items (stickers, cases, agents, vanilla knives) have no paint kit; any
  // paintwear/paintseed they carry is meaningless (generateHex even injects a default
  // 0.001 wear), so only report them for painted items.
  const painted = typeof econ.paintindex === 'number' && econ.paintindex > 0;
  if (painted) {
    // NB: despite the typings saying "uint32", decodeHex already converts paintwear from
    // its uint32 bit pattern to the float32 value; do not convert again.
    const wear = econ.paintwear;
    if (typeof wear === 'number' && Number.isFinite(wear) && wear >= 0 && wear <= 1) {
      out.float = wear;
    }
    const seed = econ.paintseed;
    if (typeof seed === 'number' && Number.isInteger(seed) && seed >= 0) {
      out.paint_seed = seed;
    }
  }
  return out;
}

/**
 * Derive `asset_id`, `float` and `paint_seed` from an inspect link. Fields that cannot be
 * derived are omitted; unrecognised input yields `{}`. Never throws.
 */
export function parseInspectLink(link: string | null | undefined): InspectLinkFields {
  try {
    if (typeof link !== 'string' || link.length === 0 || link.length > MAX_LINK_LENGTH) return {};
    const match = LINK_RE.exec(link.trim());
    const payload = match?.[1];
    if (!payload) return {};

    const classic = CLASSIC_PAYLOAD_RE.exec(payload);
    if (classic) {
      const assetId = positiveUint64(classic[2]);
      return assetId === undefined ? {} : { asset_id: assetId };
    }

    if (HEX_PAYLOAD_RE.test(payload)) return parseCs2Payload(payload);
    return {};
  } catch {
    return {};
  }
}

function assertDigits(name: string, value: string): void {
  if (typeof value !== 'string' || !/^\d{1,32}$/.test(value)) {
    throw new TypeError(`${name} must be a decimal digit string, got ${JSON.stringify(value)}`);
  }
}

/** Classic (pre-CS2) inventory inspect link: `...csgo_econ_action_preview%20S<owner>A<asset>D<d>`. */
export function buildClassicInspectLink(ownerPlatformId: string, assetId: string, d: string): string {
  assertDigits('ownerPlatformId', ownerPlatformId);
  assertDigits('assetId', assetId);
  assertDigits('d', d);
  return `${previewLink}%20S${ownerPlatformId}A${assetId}D${d}`;
}

function assertUint32(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`${name} must be a uint32, got ${value}`);
  }
}

/**
 * Self-contained CS2 inspect link (wrapped + CRC payload, as produced by the serializer's
 * generateHex). Uses `%20` as the separator, like Steam's own links.
 */
export function buildCs2InspectLink(fields: Cs2InspectFields): string {
  assertUint32('defindex', fields.defindex);
  assertUint32('paintindex', fields.paintindex);
  assertUint32('paintseed', fields.paintseed);
  if (!Number.isFinite(fields.paintwear) || fields.paintwear < 0 || fields.paintwear > 1) {
    throw new RangeError(`paintwear must be a float in [0, 1], got ${fields.paintwear}`);
  }
  if (fields.rarity !== undefined) assertUint32('rarity', fields.rarity);
  let itemid: bigint | undefined;
  if (fields.itemid !== undefined) {
    assertDigits('itemid', fields.itemid);
    itemid = BigInt(fields.itemid);
    if (itemid > UINT64_MAX) throw new RangeError(`itemid out of uint64 range: ${fields.itemid}`);
  }

  const hex = generateHex({
    defindex: fields.defindex,
    paintindex: fields.paintindex,
    paintseed: fields.paintseed,
    // generateHex takes the float and converts it to the uint32 bit pattern itself.
    paintwear: fields.paintwear,
    ...(itemid !== undefined ? { itemid } : {}),
    ...(fields.rarity !== undefined ? { rarity: fields.rarity } : {}),
    stickers: [],
    keychains: [],
  });
  return `${previewLink}%20${hex}`;
}
