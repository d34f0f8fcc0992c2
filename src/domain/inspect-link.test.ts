import { describe, it, expect } from 'vitest';
import { crc32 } from 'node:zlib';
import { CEconItemPreviewDataBlock, generateHex } from '@csfloat/cs2-inspect-serializer';
import { buildClassicInspectLink, buildCs2InspectLink, parseInspectLink } from './inspect-link.js';

const PREFIX = 'steam://rungame/730/76561202255233023/+csgo_econ_action_preview';

/** Same checksum as the serializer's (unexported) getChecksum. */
function checksum(payload: Uint8Array): number {
  const crc = crc32(Buffer.concat([Uint8Array.from([0]), payload])) | 0;
  return (((crc & 0xffff) ^ (payload.byteLength * crc)) & 0xffffffff) >>> 0;
}

/** Wrapped CS2 hex from an arbitrary message, bypassing generateHex's paintwear default. */
function wrappedHex(msg: Partial<CEconItemPreviewDataBlock>): string {
  const payload = CEconItemPreviewDataBlock.toBinary({ stickers: [], keychains: [], ...msg });
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(checksum(payload), 0);
  return Buffer.concat([Uint8Array.from([0]), payload, crc]).toString('hex').toUpperCase();
}

/** XOR-masked hex, the form Steam itself emits for CS2 inspect links. */
function maskedHex(msg: Partial<CEconItemPreviewDataBlock>, key: number): string {
  const payload = CEconItemPreviewDataBlock.toBinary({ stickers: [], keychains: [], ...msg });
  const plain = Buffer.concat([Uint8Array.from([0]), payload, Buffer.from([1, 2, 3, 4])]);
  return Buffer.from(plain.map((b) => b ^ key)).toString('hex').toUpperCase();
}

function float32Bits(f: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, f, true);
  return view.getUint32(0, true);
}

/** Deterministic PRNG so the "random" input is reproducible. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('parseInspectLink: classic links', () => {
  it('parses the literal example', () => {
    const link =
      'steam://rungame/730/76561202255233023/+csgo_econ_action_preview%20S76561198084749846A6768147729D12557175561287951743';
    expect(parseInspectLink(link)).toEqual({ asset_id: '6768147729' });
  });

  it('accepts a literal space instead of %20', () => {
    const link =
      'steam://rungame/730/76561202255233023/+csgo_econ_action_preview S76561198084749846A6768147729D12557175561287951743';
    expect(parseInspectLink(link)).toEqual({ asset_id: '6768147729' });
  });

  it('parses the market form M<listing>A<asset>D<d>', () => {
    const link = `${PREFIX}%20M625254122282020305A6760346663D30614827701953021`;
    expect(parseInspectLink(link)).toEqual({ asset_id: '6760346663' });
    expect(parseInspectLink(`${PREFIX} M625254122282020305A6760346663D30614827701953021`)).toEqual({
      asset_id: '6760346663',
    });
  });

  it('round-trips buildClassicInspectLink', () => {
    const link = buildClassicInspectLink('76561198084749846', '38350177019', '9272059625839506349');
    expect(link).toBe(`${PREFIX}%20S76561198084749846A38350177019D9272059625839506349`);
    const parsed = parseInspectLink(link);
    expect(parsed).toEqual({ asset_id: '38350177019' });
    expect(parsed).not.toHaveProperty('float');
    expect(parsed).not.toHaveProperty('paint_seed');
  });

  it('treats a zero asset as no asset', () => {
    expect(parseInspectLink(`${PREFIX}%20S76561198084749846A0D1`)).toEqual({});
  });

  it('builder rejects non-numeric parts', () => {
    expect(() => buildClassicInspectLink('7656', 'abc', '1')).toThrow();
  });
});

describe('parseInspectLink: CS2 self-contained links', () => {
  it('round-trips a painted item with an item id', () => {
    const link = buildCs2InspectLink({
      defindex: 7,
      paintindex: 474,
      paintseed: 306,
      paintwear: 0.6336590647697449,
      itemid: '41286712451',
      rarity: 6,
    });
    expect(link.startsWith(`${PREFIX}%20`)).toBe(true);
    const parsed = parseInspectLink(link);
    expect(parsed.asset_id).toBe('41286712451');
    expect(parsed.paint_seed).toBe(306);
    expect(parsed.float).toBeCloseTo(0.6336590647697449, 6);
    expect(Math.abs(parsed.float! - 0.6336590647697449)).toBeLessThan(1e-6);
  });

  it('round-trips several floats within 1e-6 and keeps paint seed 0', () => {
    for (const wear of [0, 0.00000123, 0.07, 0.15, 0.123456789, 0.449999, 0.999999, 1]) {
      const parsed = parseInspectLink(
        buildCs2InspectLink({ defindex: 60, paintindex: 1, paintseed: 0, paintwear: wear }),
      );
      expect(Math.abs(parsed.float! - wear)).toBeLessThan(1e-6);
      expect(parsed.paint_seed).toBe(0);
    }
  });

  it('omits asset_id when the item has no item id (or a zero one)', () => {
    const noId = parseInspectLink(
      buildCs2InspectLink({ defindex: 7, paintindex: 474, paintseed: 1000, paintwear: 0.25 }),
    );
    expect(noId).toEqual({ float: 0.25, paint_seed: 1000 });
    const zeroId = parseInspectLink(
      buildCs2InspectLink({ defindex: 7, paintindex: 474, paintseed: 1, paintwear: 0.5, itemid: '0' }),
    );
    expect(zeroId).toEqual({ float: 0.5, paint_seed: 1 });
  });

  it('accepts a literal space and the serializer-style link', () => {
    const hex = generateHex({
      defindex: 7,
      paintindex: 474,
      paintseed: 306,
      paintwear: 0.25,
      itemid: 123n,
      stickers: [],
      keychains: [],
    });
    const expected = { asset_id: '123', float: 0.25, paint_seed: 306 };
    expect(parseInspectLink(`${PREFIX} ${hex}`)).toEqual(expected);
    expect(parseInspectLink(`${PREFIX}%20${hex}`)).toEqual(expected);
    expect(parseInspectLink(`${PREFIX}%20${hex.toLowerCase()}`)).toEqual(expected);
    // Other owner segments / `run` form / bare console command (the library's decodeLink rejects the first).
    expect(parseInspectLink(`steam://rungame/730/76561198084749846/+csgo_econ_action_preview%20${hex}`)).toEqual(expected);
    expect(parseInspectLink(`steam://run/730//+csgo_econ_action_preview%20${hex}`)).toEqual(expected);
    expect(parseInspectLink(`csgo_econ_action_preview ${hex}`)).toEqual(expected);
  });

  it('sticker without paintwear/paintindex → no float / paint_seed', () => {
    const hex = wrappedHex({ defindex: 1209, stickers: [{ slot: 0, stickerId: 5000 }] });
    expect(parseInspectLink(`${PREFIX}%20${hex}`)).toEqual({});
    const withId = wrappedHex({ itemid: 987654321n, defindex: 1209, stickers: [{ slot: 0, stickerId: 5000 }] });
    expect(parseInspectLink(`${PREFIX}%20${withId}`)).toEqual({ asset_id: '987654321' });
  });

  it('sticker built via buildCs2InspectLink (paintindex 0) → no float / paint_seed', () => {
    const link = buildCs2InspectLink({ defindex: 1209, paintindex: 0, paintseed: 0, paintwear: 0, itemid: '55' });
    expect(parseInspectLink(link)).toEqual({ asset_id: '55' });
  });

  it('test helper reproduces the library checksum', () => {
    const msg = { defindex: 7, paintindex: 474, paintseed: 306, rarity: 6 };
    expect(wrappedHex({ ...msg, paintwear: float32Bits(0.25) })).toBe(
      generateHex({ ...msg, paintwear: 0.25, stickers: [], keychains: [] }),
    );
  });

  it('decodes the XOR-masked form Steam emits', () => {
    const hex = maskedHex(
      {
        itemid: 46100253731n,
        defindex: 7,
        paintindex: 282,
        rarity: 5,
        quality: 4,
        paintwear: float32Bits(0.2812345),
        paintseed: 661,
        inventory: 3221225475,
        origin: 8,
      },
      0xe3,
    );
    const parsed = parseInspectLink(`${PREFIX}%20${hex}`);
    expect(parsed.asset_id).toBe('46100253731');
    expect(parsed.paint_seed).toBe(661);
    expect(Math.abs(parsed.float! - 0.2812345)).toBeLessThan(1e-6);
  });

  it('rejects a payload whose checksum is wrong', () => {
    const link = buildCs2InspectLink({ defindex: 7, paintindex: 474, paintseed: 306, paintwear: 0.25, itemid: '9' });
    const broken = link.slice(0, -1) + (link.endsWith('0') ? '1' : '0');
    expect(parseInspectLink(broken)).toEqual({});
  });

  it('builder validates its input', () => {
    expect(() => buildCs2InspectLink({ defindex: 7, paintindex: 1, paintseed: 1, paintwear: 1.5 })).toThrow(RangeError);
    expect(() => buildCs2InspectLink({ defindex: 7, paintindex: 1, paintseed: 1, paintwear: 0.1, itemid: 'x' })).toThrow(
      TypeError,
    );
  });
});

describe('parseInspectLink: garbage', () => {
  const rand = mulberry32(42);
  const alphabet = 'ABCDEF0123456789abcdefSMDZ%20 +/:~\u00e9\u4e2d\n\t';
  const random5000 = Array.from({ length: 5000 }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
  const randomHex = Array.from({ length: 4000 }, () => '0123456789ABCDEF'[Math.floor(rand() * 16)]).join('');

  const cases: Array<[string, string | null | undefined]> = [
    ['empty string', ''],
    ['ZZZ payload', 'steam://rungame/730/1/+csgo_econ_action_preview%20ZZZ'],
    ['5000-char random string', random5000],
    ['null', null],
    ['undefined', undefined],
    ['http link', 'https://steamcommunity.com/market/listings/730/AK-47%20%7C%20Redline'],
    ['http link with preview command', `https://example.com/+csgo_econ_action_preview%20S1A2D3`],
    ['no payload', `${PREFIX}%20`],
    ['prefix only', PREFIX],
    ['odd-length hex', `${PREFIX}%20ABC`],
    ['short hex', `${PREFIX}%2000`],
    ['random hex payload', `${PREFIX}%20${randomHex}`],
    ['random hex payload, odd prefix byte', `${PREFIX}%2001${randomHex}`],
    ['template placeholders', `${PREFIX}%20S%owner_steamid%A%assetid%D123`],
    ['classic without asset', `${PREFIX}%20S76561198084749846D123`],
    ['wrong app id', 'steam://rungame/440/76561202255233023/+csgo_econ_action_preview%20S1A2D3'],
    ['trailing junk', `${PREFIX}%20S1A2D3 extra`],
  ];

  for (const [name, input] of cases) {
    it(`returns {} for ${name}`, () => {
      expect(parseInspectLink(input)).toEqual({});
    });
  }

  it('never throws on non-string input', () => {
    for (const v of [42, {}, [], Symbol('x'), () => 1] as unknown[]) {
      expect(parseInspectLink(v as string)).toEqual({});
    }
  });
});
