// Deterministic generator for the sandbox price book: data/pricebook/<game>.json.
//
//   npx tsx scripts/gen-pricebook.ts
//
// Names are real Steam Community Market hash names (weapon | skin (exterior), StatTrak™/Souvenir
// variants, stickers, cases, agents; Rust workshop skins; Dota 2 and TF2 items with their quality
// prefixes). Prices are market-ish but synthetic: every price comes from a PRNG seeded with the
// item's own name, so the output is byte-identical on every run and does not depend on list order.
//
// One deliberate convention: Steam has one listing for "★ Karambit | Doppler (Factory New)" whatever
// its phase. The book carries that real name (priced as a typical phase) plus one entry per phase named
// "<real name> - <phase>" with a `phase` field, since market_hash_name must be unique per game.
// PriceBook.get(game, name, phase) resolves the phase entry first and falls back to the plain name.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fnv1a, mulberry32 } from '../src/domain/prng.js';

type GameId = 'csgo' | 'rust' | 'dota2' | 'tf2';

interface Entry {
  market_hash_name: string;
  price: number;
  exterior?: string;
  rarity?: string;
  rarity_color?: string;
  phase?: string;
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness
// ---------------------------------------------------------------------------------------------

const SEED = 'sandbox-pricebook-v1';

/** A PRNG private to one item: same name, same numbers, regardless of generation order. */
function rngFor(game: GameId, name: string): () => number {
  return mulberry32(fnv1a(`${SEED}|${game}|${name}`));
}

/** base × (1 ± spread), uniformly. */
function vary(rng: () => number, base: number, spread = 0.15): number {
  return base * (1 - spread + 2 * spread * rng());
}

/** log-uniform in [lo, hi]. */
function logUniform(rng: () => number, lo: number, hi: number): number {
  return Math.exp(Math.log(lo) + (Math.log(hi) - Math.log(lo)) * rng());
}

function usd(x: number, min = 0.03): number {
  const cents = Math.round(x * 100);
  return Math.max(min, cents / 100);
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

class Book {
  readonly entries: Entry[] = [];
  private readonly names = new Set<string>();
  constructor(readonly game: GameId) {}

  add(e: Entry): void {
    if (this.names.has(e.market_hash_name)) return; // first definition wins; lists may overlap
    if (!(e.price > 0) || Math.round(e.price * 100) / 100 !== e.price) {
      throw new Error(`bad price for ${this.game} ${e.market_hash_name}: ${e.price}`);
    }
    this.names.add(e.market_hash_name);
    const out: Entry = { market_hash_name: e.market_hash_name, price: e.price };
    if (e.exterior) out.exterior = e.exterior;
    if (e.rarity) out.rarity = e.rarity;
    if (e.rarity_color) out.rarity_color = e.rarity_color;
    if (e.phase) out.phase = e.phase;
    this.entries.push(out);
  }

  rng(name: string): () => number {
    return rngFor(this.game, name);
  }

  serialize(): string {
    return `[\n${this.entries.map((e) => `  ${JSON.stringify(e)}`).join(',\n')}\n]\n`;
  }
}

// ---------------------------------------------------------------------------------------------
// CS2 / CS:GO
// ---------------------------------------------------------------------------------------------

const CS_RARITY_COLOR: Record<string, string> = {
  'Consumer Grade': 'b0c3d9',
  'Industrial Grade': '5e98d9',
  'Mil-Spec Grade': '4b69ff',
  Restricted: '8847ff',
  Classified: 'd32ce6',
  Covert: 'eb4b4b',
  Contraband: 'e4ae39',
  'Base Grade': 'b0c3d9',
  'High Grade': '4b69ff',
  Remarkable: '8847ff',
  Exotic: 'd32ce6',
  Extraordinary: 'eb4b4b',
  Distinguished: '4b69ff',
  Exceptional: '8847ff',
  Superior: 'd32ce6',
  Master: 'eb4b4b',
};

const RARITY_CODE: Record<string, string> = {
  C: 'Consumer Grade',
  I: 'Industrial Grade',
  M: 'Mil-Spec Grade',
  R: 'Restricted',
  K: 'Classified',
  V: 'Covert',
  X: 'Contraband',
};

const EXTERIORS = ['Factory New', 'Minimal Wear', 'Field-Tested', 'Well-Worn', 'Battle-Scarred'] as const;
const WEAR_CODES = ['FN', 'MW', 'FT', 'WW', 'BS'] as const;
const WEAR_MULT = [2.1, 1.4, 1, 0.86, 0.74];

function wearRange(spec: string | undefined): number[] {
  if (!spec) return [0, 1, 2, 3, 4];
  const [from, to] = spec.split('-') as [string, string | undefined];
  const a = WEAR_CODES.indexOf(from as (typeof WEAR_CODES)[number]);
  const b = WEAR_CODES.indexOf((to ?? from) as (typeof WEAR_CODES)[number]);
  if (a < 0 || b < a) throw new Error(`bad wear range ${spec}`);
  const out: number[] = [];
  for (let i = a; i <= b; i++) out.push(i);
  return out;
}

// weapon | skin | rarity code | typical Field-Tested USD | flags (n = no StatTrak, s = has Souvenir, w=FN-MW wear range)
const CS_SKINS = `
AK-47|Redline|K|28|w=MW-BS
AK-47|Vulcan|V|220
AK-47|Fire Serpent|V|750
AK-47|Asiimov|V|95
AK-47|Bloodsport|V|110|w=FN-FT
AK-47|Neon Revolution|V|45
AK-47|Fuel Injector|V|75
AK-47|The Empress|V|45
AK-47|Case Hardened|K|140
AK-47|Jaguar|V|80
AK-47|Aquamarine Revenge|V|45
AK-47|Wasteland Rebel|V|55
AK-47|Frontside Misty|K|22
AK-47|Point Disarray|K|18
AK-47|Hydroponic|K|140|n
AK-47|Jet Set|K|70|n
AK-47|Neon Rider|V|60
AK-47|Phantom Disruptor|K|9
AK-47|Elite Build|M|2.5
AK-47|Slate|R|4.5
AK-47|Ice Coaled|K|12
AK-47|Nightwish|V|55
AK-47|Legion of Anubis|V|38
AK-47|Head Shot|V|35
AK-47|Inheritance|V|55
AK-47|Gold Arabesque|V|1400|n
AK-47|Wild Lotus|V|2800|n
AK-47|Safari Mesh|I|0.35|n s
AK-47|Uncharted|M|0.6
AK-47|Orbit Mk01|R|4
AK-47|Rat Rod|R|2.5
AK-47|Cartel|R|7
AK-47|Emerald Pinstripe|R|4
AK-47|Red Laminate|K|35
AK-47|Blue Laminate|R|6
AK-47|Predator|I|1|n
AK-47|First Class|R|25|n
AK-47|Jungle Spray|I|2|n
M4A4|Howl|X|3500|w=FN-FT
M4A4|Asiimov|V|95|w=FT-BS
M4A4|The Emperor|V|28
M4A4|Neo-Noir|V|22
M4A4|Desolate Space|K|13
M4A4|Buzz Kill|K|9
M4A4|Hellfire|K|11
M4A4|Royal Paladin|K|9
M4A4|龍王 (Dragon King)|K|9
M4A4|Bullet Rain|K|16
M4A4|Poseidon|K|280|n
M4A4|Desert-Strike|R|4
M4A4|Evil Daimyo|R|2
M4A4|Cyber Security|V|28
M4A4|In Living Color|V|25
M4A4|Temukau|V|35
M4A4|Tooth Fairy|K|9
M4A4|Griffin|R|3
M4A4|Zirka|R|2
M4A4|Magnesium|M|0.8
M4A4|Faded Zebra|M|0.6
M4A4|Urban DDPAT|C|0.2|n
M4A4|Eye of Horus|V|450|n
M4A4|X-Ray|K|14
M4A4|Spider Lily|R|3
M4A4|Global Offensive|K|10
M4A4|Radiation Hazard|R|9|n
M4A4|Daybreak|K|30|n
M4A1-S|Printstream|V|75
M4A1-S|Hot Rod|K|280|n w=FN-MW
M4A1-S|Knight|K|380|n w=FN-MW
M4A1-S|Hyper Beast|V|14
M4A1-S|Golden Coil|V|18
M4A1-S|Chantico's Fire|V|28
M4A1-S|Mecha Industries|V|18
M4A1-S|Decimator|K|9
M4A1-S|Cyrex|K|9
M4A1-S|Guardian|R|3
M4A1-S|Atomic Alloy|K|7
M4A1-S|Nitro|R|2|n
M4A1-S|Icarus Fell|K|140|n w=FN-MW
M4A1-S|Master Piece|K|35|n s
M4A1-S|Blue Phosphor|V|180|n w=FN-MW
M4A1-S|Player Two|V|28
M4A1-S|Welcome to the Jungle|V|450|n
M4A1-S|Leaded Glass|R|3
M4A1-S|Nightmare|K|9
M4A1-S|Emphorosaur-S|R|3
M4A1-S|Dark Water|R|8|w=FN-MW
M4A1-S|Basilisk|R|3
M4A1-S|Bright Water|R|5|w=FN-FT
M4A1-S|Boreal Forest|I|0.5|n s
M4A1-S|Flashback|M|1
M4A1-S|Briefing|M|1
M4A1-S|Black Lotus|K|8
AWP|Dragon Lore|V|7500|n s
AWP|Medusa|V|2200|n
AWP|Gungnir|V|8500|n
AWP|Asiimov|V|110|w=FT-BS
AWP|Lightning Strike|V|180|w=FN-MW
AWP|Hyper Beast|V|45
AWP|Neo-Noir|V|28
AWP|Containment Breach|V|55
AWP|Wildfire|V|55
AWP|Fade|V|850|n w=FN-MW
AWP|Oni Taiji|V|75
AWP|Fever Dream|K|7
AWP|Redline|K|18|w=MW-BS
AWP|Electric Hive|K|14
AWP|Graphite|K|45|w=FN-MW
AWP|BOOM|K|90|w=FN-FT
AWP|Man-o'-war|K|9|w=FN-MW
AWP|Corticera|R|7
AWP|Elite Build|R|4
AWP|Pit Viper|R|3|n s
AWP|Atheris|R|3
AWP|Mortis|R|3
AWP|PAW|R|1
AWP|Worm God|R|3
AWP|Chromatic Aberration|V|35
AWP|Chrome Cannon|V|55
AWP|Safari Mesh|I|1|n s
AWP|Pink DDPAT|I|18|n
AWP|Desert Hydra|V|450|n
AWP|Sun in Leo|R|5|n
AWP|Acheron|R|2
AWP|Snake Camo|R|5|n
AWP|The Prince|V|700
AWP|Duality|K|5
Glock-18|Fade|R|750|n w=FN-MW
Glock-18|Dragon Tattoo|R|140|n w=FN-MW
Glock-18|Water Elemental|K|7
Glock-18|Wasteland Rebel|V|18
Glock-18|Twilight Galaxy|K|18|w=FN-FT
Glock-18|Bullet Queen|V|14
Glock-18|Neo-Noir|V|9
Glock-18|Vogue|K|4
Glock-18|Gamma Doppler|V|140|w=FN-MW
Glock-18|Moonrise|R|3
Glock-18|Royal Legion|R|2
Glock-18|Weasel|R|2
Glock-18|Grinder|M|0.8
Glock-18|Steel Disruptor|R|1
Glock-18|Brass|I|5|n
Glock-18|Reactor|R|8|n
Glock-18|Ironwork|R|2
Glock-18|Sand Dune|C|0.1|n s
Glock-18|Groundwater|I|0.5|n
Glock-18|Catacombs|M|0.8
Glock-18|Off World|M|0.7
Glock-18|Umbral Rabbit|K|9
Glock-18|Block-18|R|3
Glock-18|Candy Apple|I|1.5|n
Glock-18|Snack Attack|K|7
USP-S|Kill Confirmed|V|75
USP-S|Orion|K|28|w=FN-FT
USP-S|Neo-Noir|V|18
USP-S|Cortex|K|9
USP-S|Caiman|K|14
USP-S|Serum|K|14
USP-S|Overgrowth|R|5|n
USP-S|Guardian|R|3
USP-S|Blueprint|R|2
USP-S|Cyrex|K|9
USP-S|Monster Mashup|K|7
USP-S|The Traitor|V|28
USP-S|Printstream|V|55
USP-S|Dark Water|R|8|w=FN-MW
USP-S|Road Rash|R|9
USP-S|Stainless|R|5
USP-S|Torque|M|1
USP-S|Flashback|M|1
USP-S|Lead Conduit|M|1
USP-S|Ticket to Hell|K|6
USP-S|Forest Leaves|I|0.5|n
USP-S|Night Ops|I|1|n
Desert Eagle|Blaze|R|550|n w=FN-MW
Desert Eagle|Golden Koi|V|45|w=FN-MW
Desert Eagle|Printstream|V|45
Desert Eagle|Code Red|V|38
Desert Eagle|Kumicho Dragon|K|14
Desert Eagle|Mecha Industries|K|7
Desert Eagle|Conspiracy|R|7
Desert Eagle|Cobalt Disruption|R|18|w=FN-MW
Desert Eagle|Hypnotic|R|18|w=FN-MW
Desert Eagle|Crimson Web|R|9
Desert Eagle|Heirloom|K|9
Desert Eagle|Ocean Drive|V|22
Desert Eagle|Directive|R|3
Desert Eagle|Light Rail|R|3
Desert Eagle|Trigger Discipline|R|3
Desert Eagle|Naga|R|3
Desert Eagle|Oxide Blaze|M|1
Desert Eagle|Midnight Storm|M|1|n
Desert Eagle|Sunset Storm 壱|K|35|n
Desert Eagle|Sunset Storm 弐|K|30|n
Desert Eagle|Corinthian|M|0.8
Desert Eagle|Bronze Deco|M|0.8
Desert Eagle|Fennec Fox|V|250|n
P250|See Ya Later|V|7
P250|Asiimov|V|7
P250|Muertos|K|4
P250|Mehndi|K|4
P250|Undertow|K|5|w=FN-MW
P250|Franklin|R|8|n
P250|Supernova|R|2
P250|Wingshot|R|2
P250|Cartel|R|2
P250|Splash|R|3
P250|Visions|K|5
P250|Nevermore|R|1
P250|Sand Dune|C|0.05|n s
P250|Valence|M|0.3
P250|Ripple|M|0.3
P250|Iron Clad|M|0.5
P250|Nuclear Threat|R|18|n
Five-SeveN|Case Hardened|K|14
Five-SeveN|Hyper Beast|V|14
Five-SeveN|Monkey Business|K|5
Five-SeveN|Fowl Play|R|3
Five-SeveN|Angry Mob|V|9
Five-SeveN|Fairy Tale|V|7
Five-SeveN|Copper Galaxy|R|3
Five-SeveN|Retrobution|R|2
Five-SeveN|Urban Hazard|M|0.5
Five-SeveN|Nightshade|R|2
Five-SeveN|Kami|M|0.5
Five-SeveN|Triumvirate|R|2
Five-SeveN|Violent Daimyo|M|0.3
Five-SeveN|Flame Test|M|0.3
Tec-9|Fuel Injector|K|5
Tec-9|Nuclear Threat|R|8|n
Tec-9|Titanium Bit|R|1
Tec-9|Avalanche|R|3
Tec-9|Remote Control|K|3
Tec-9|Decimator|K|3
Tec-9|Isaac|M|0.5
Tec-9|Red Quartz|R|3|n
Tec-9|Ice Cap|M|0.3
Tec-9|Bamboozle|M|0.3
Tec-9|Re-Entry|M|0.2
Tec-9|Fubar|M|0.2
Tec-9|Brother|R|1
Tec-9|Sandstorm|M|0.3
Tec-9|Toxic|R|5|n
Tec-9|Cracked Opal|M|0.2
CZ75-Auto|Victoria|V|10
CZ75-Auto|Xiangliu|K|3
CZ75-Auto|Yellow Jacket|R|2
CZ75-Auto|The Fuschia Is Now|R|5|n
CZ75-Auto|Tigris|R|2
CZ75-Auto|Red Astor|M|0.5
CZ75-Auto|Pole Position|R|1
CZ75-Auto|Tacticat|R|1
CZ75-Auto|Chalice|R|5|n
CZ75-Auto|Poison Dart|M|0.5
CZ75-Auto|Twist|M|0.5
CZ75-Auto|Eco|M|0.3
CZ75-Auto|Polymer|M|0.2
P2000|Fire Elemental|V|15
P2000|Ocean Foam|R|20|n w=FN-MW
P2000|Corticera|R|3
P2000|Imperial Dragon|K|5
P2000|Handgun|R|2
P2000|Amber Fade|R|5|n
P2000|Scorpion|R|5|n
P2000|Ivory|M|0.5
P2000|Oceanic|M|0.5
P2000|Turf|M|0.5
P2000|Woodsman|M|0.3
P2000|Urban Hazard|M|0.3
P2000|Chainmail|R|3|n
P2000|Acid Etched|K|5
Dual Berettas|Cobra Strike|K|3
Dual Berettas|Twin Turbo|K|3
Dual Berettas|Melondrama|K|3
Dual Berettas|Royal Consorts|R|1
Dual Berettas|Marina|R|1
Dual Berettas|Hemoglobin|R|1
Dual Berettas|Urban Shock|R|1
Dual Berettas|Cobalt Quartz|R|2|n
Dual Berettas|Flora Carnivora|K|5
Dual Berettas|Duelist|R|3|n
Dual Berettas|Demolition|R|5|n
Dual Berettas|Panther|R|2
R8 Revolver|Fade|K|20
R8 Revolver|Amber Fade|R|3
R8 Revolver|Llama Cannon|R|2
R8 Revolver|Reboot|R|1
R8 Revolver|Survivalist|M|0.3
R8 Revolver|Skull Crusher|R|1
R8 Revolver|Grip|R|0.5
R8 Revolver|Banana Cannon|K|3
MAC-10|Neon Rider|V|5
MAC-10|Disco Tech|K|3
MAC-10|Stalker|K|3
MAC-10|Fade|R|10|w=FN-MW
MAC-10|Heat|R|2
MAC-10|Malachite|R|1
MAC-10|Tatter|R|1
MAC-10|Curse|R|3
MAC-10|Amber Fade|R|5|n
MAC-10|Last Dive|R|1
MAC-10|Whitefish|M|0.3
MAC-10|Pipe Down|R|1
MAC-10|Hot Snakes|R|2
MAC-10|Toybox|K|5
MAC-10|Ensnared|R|1
MP9|Starlight Protector|V|10
MP9|Hydra|K|5
MP9|Rose Iron|R|2
MP9|Hypnotic|R|5|n
MP9|Ruby Poison Dart|R|2
MP9|Bulldozer|K|5|n
MP9|Airlock|R|1
MP9|Food Chain|K|3
MP9|Goo|M|0.3
MP9|Deadly Poison|M|0.5
MP9|Bioleak|M|0.3
MP9|Dart|M|0.2
MP9|Stained Glass|M|0.3
MP9|Dark Age|M|0.3
MP9|Black Sand|M|0.3
MP7|Bloodsport|V|8
MP7|Nemesis|K|3
MP7|Impire|R|1
MP7|Skulls|R|1
MP7|Special Delivery|R|1
MP7|Whiteout|R|3|n
MP7|Fade|R|3|n
MP7|Powercore|R|1
MP7|Abyssal Apparition|K|3
MP7|Armor Core|M|0.3
MP7|Cirrus|M|0.2
MP7|Akoben|M|0.3
MP7|Mischief|M|0.3
MP7|Urban Hazard|M|0.3
MP5-SD|Phosphor|K|3
MP5-SD|Lab Rats|M|0.5
MP5-SD|Agent|R|0.5
MP5-SD|Gauss|M|0.3
UMP-45|Primal Saber|K|5
UMP-45|Blaze|R|5|n
UMP-45|Arctic Wolf|K|3
UMP-45|Momentum|R|1
UMP-45|Exposure|R|1
UMP-45|Grand Prix|R|1
UMP-45|Corporal|M|0.3
UMP-45|Labyrinth|M|0.3
UMP-45|Delusion|M|0.3
UMP-45|Scaffold|M|0.2
UMP-45|Metal Flowers|M|0.2
UMP-45|Riot|M|0.3
UMP-45|Wild Child|K|3
UMP-45|Moonrise|R|1
P90|Asiimov|V|10
P90|Death by Kitty|V|40
P90|Emerald Dragon|K|30|n
P90|Shapewood|K|5
P90|Trigon|K|3
P90|Shallow Grave|K|3
P90|Cold Blooded|R|10|n
P90|Chopper|R|1
P90|Elite Build|M|0.3
P90|Grim|M|0.3
P90|Module|M|0.3
P90|Virus|R|1
P90|Blind Spot|R|1
P90|Nostalgia|R|1
P90|Off World|M|0.3
P90|Death Grip|M|0.3
P90|Traction|M|0.3
PP-Bizon|Judgement of Anubis|V|3
PP-Bizon|Fuel Rod|R|1
PP-Bizon|Antique|R|1
PP-Bizon|Osiris|R|0.5
PP-Bizon|Blue Streak|R|0.5
PP-Bizon|Water Sigil|M|0.2
PP-Bizon|Cobalt Halftone|M|0.2
PP-Bizon|Harvester|M|0.2
PP-Bizon|Jungle Slipstream|M|0.2
PP-Bizon|Embargo|M|0.2
PP-Bizon|Night Riot|M|0.2
Nova|Antique|K|5
Nova|Hyper Beast|K|3
Nova|Bloomstick|K|3
Nova|Koi|R|1
Nova|Graphite|R|3|w=FN-MW
Nova|Rising Skull|R|1
Nova|Tempest|R|1
Nova|Gila|R|1
Nova|Ranger|M|0.2
Nova|Exo|M|0.2
Nova|Wild Six|R|1
Nova|Toy Soldier|R|1
Nova|Wood Fired|M|0.2
XM1014|Tranquility|K|3
XM1014|Seasons|R|1
XM1014|Ziggy|R|1
XM1014|Incinegator|K|3
XM1014|Black Tie|R|1
XM1014|Entombed|K|3
XM1014|Teclu Burner|R|1
XM1014|Heaven Guard|R|1
XM1014|Scumbria|M|0.2
XM1014|Slipstream|M|0.2
XM1014|Bone Machine|R|1
XM1014|Oxide Blaze|M|0.2
XM1014|Red Python|M|0.2
XM1014|Quicksilver|R|1
MAG-7|Justice|K|3
MAG-7|Praetorian|R|1
MAG-7|Heat|R|1
MAG-7|Bulldozer|R|5|n
MAG-7|SWAG-7|R|1
MAG-7|Petroglyph|R|1
MAG-7|Firestarter|R|1
MAG-7|Heaven Guard|M|0.2
MAG-7|Sonar|M|0.2
MAG-7|Hard Water|M|0.2
Sawed-Off|The Kraken|K|5
Sawed-Off|Wasteland Princess|K|3
Sawed-Off|Devourer|K|3
Sawed-Off|Kiss♥Love|K|3
Sawed-Off|Serenity|R|1
Sawed-Off|Highwayman|R|1
Sawed-Off|Limelight|R|1
Sawed-Off|Origami|M|0.2
Sawed-Off|Yorick|M|0.2
Sawed-Off|Zander|M|0.2
Sawed-Off|Black Sand|M|0.2
Sawed-Off|Fubar|M|0.2
Sawed-Off|Morris|M|0.2
Sawed-Off|Apocalypto|M|0.2
Sawed-Off|Amber Fade|R|3|n
M249|Emerald Poison Dart|R|1
M249|Nebula Crusader|R|1
M249|Magma|M|0.3
M249|System Lock|M|0.2
M249|Spectre|M|0.2
M249|Aztec|M|0.2
M249|Warbird|M|0.2
Negev|Power Loader|R|1
Negev|Mjölnir|K|30|n
Negev|Loudmouth|R|1
Negev|Lionfish|R|1
Negev|Bratatat|M|0.3
Negev|Dazzle|M|0.2
Negev|Man-o'-war|M|0.2
Negev|Desert-Strike|M|0.3
Negev|Terrain|M|0.2
Negev|Prototype|M|0.2
Negev|Ultralight|M|0.2
FAMAS|Roll Cage|K|3
FAMAS|Commemoration|V|5
FAMAS|Djinn|R|2
FAMAS|Mecha Industries|R|1
FAMAS|Eye of Athena|K|3
FAMAS|Afterimage|K|5
FAMAS|Pulse|R|2
FAMAS|Valence|R|1
FAMAS|Neural Net|M|0.3
FAMAS|Styx|R|1
FAMAS|Sergeant|M|0.3
FAMAS|Rapid Eye Movement|K|3
FAMAS|Decommissioned|M|0.2
FAMAS|Crypsis|M|0.2
FAMAS|Survivor Z|M|0.2
FAMAS|ZX Spectron|M|0.2
Galil AR|Chatterbox|V|10
Galil AR|Cerberus|K|5
Galil AR|Eco|R|1
Galil AR|Sugar Rush|K|5|n
Galil AR|Firefight|R|1
Galil AR|Stone Cold|R|1
Galil AR|Kami|R|1
Galil AR|Crimson Tsunami|R|1
Galil AR|Rocket Pop|R|1
Galil AR|Signal|R|1
Galil AR|Black Sand|M|0.2
Galil AR|Sandstorm|M|0.2
Galil AR|Blue Titanium|M|0.5|n
Galil AR|Connexion|M|0.2
Galil AR|Phoenix Blacklight|K|3
Galil AR|Chromatic Aberration|R|1
SG 553|Integrale|V|30|n
SG 553|Cyrex|K|3
SG 553|Pulse|R|1
SG 553|Tiger Moth|R|1
SG 553|Triarch|M|0.2
SG 553|Phantom|M|0.2
SG 553|Darkwing|R|1
SG 553|Colony IV|K|3
SG 553|Ultraviolet|R|1
SG 553|Aloha|M|0.2
SG 553|Danger Close|M|0.2
SG 553|Atlas|M|0.2
SG 553|Dragon Tech|K|3
AUG|Akihabara Accept|V|800|n
AUG|Chameleon|V|5
AUG|Syd Mead|K|5
AUG|Fleet Flock|K|3
AUG|Bengal Tiger|R|2
AUG|Stymphalian|R|1
AUG|Momentum|R|1
AUG|Torque|R|1
AUG|Hot Rod|R|10|n
AUG|Aristocrat|R|1
AUG|Arctic Wolf|R|1
AUG|Flame Jörmungandr|K|30|n
AUG|Wings|M|0.5
AUG|Ricochet|M|0.2
AUG|Triqua|M|0.2
AUG|Radiation Hazard|R|3|n
SSG 08|Dragonfire|V|15
SSG 08|Blood in the Water|V|30
SSG 08|Big Iron|K|5
SSG 08|Death's Head|R|2
SSG 08|Ghost Crusader|R|1
SSG 08|Necropos|R|1
SSG 08|Abyss|R|1
SSG 08|Detour|R|3|n
SSG 08|Turbo Peek|K|5
SSG 08|Fever Dream|R|1
SSG 08|Acid Fade|R|3|n
SSG 08|Bloodshot|R|1
SSG 08|Dark Water|R|5|n
SSG 08|Slashed|M|0.3
SSG 08|Parallax|M|0.2
SCAR-20|Cardiac|K|3
SCAR-20|Splash Jam|K|10|n
SCAR-20|Bloodsport|K|3
SCAR-20|Emerald|R|3|n
SCAR-20|Cyrex|R|1
SCAR-20|Crimson Web|R|1|n
SCAR-20|Jungle Slipstream|M|0.2
SCAR-20|Grotto|M|0.2
SCAR-20|Blueprint|M|0.2
SCAR-20|Powercore|M|0.2
SCAR-20|Enforcer|R|1
G3SG1|The Executioner|K|3
G3SG1|Flux|R|1
G3SG1|Chronos|K|3|n
G3SG1|Murky|R|1
G3SG1|Demeter|R|1
G3SG1|Stinger|R|1
G3SG1|Hunter|M|0.2
G3SG1|Scavenger|M|0.2
G3SG1|Ventilator|M|0.2
G3SG1|High Seas|M|0.2
G3SG1|Black Sand|M|0.2
G3SG1|Orange Crash|M|0.2
`;

interface KnifeDef {
  name: string;
  mult: number;
  finishes: string[];
}

const KNIFE_ORIGINALS = [
  'Fade', 'Crimson Web', 'Case Hardened', 'Slaughter', 'Blue Steel', 'Stained',
  'Forest DDPAT', 'Safari Mesh', 'Boreal Forest', 'Urban Masked', 'Scorched',
];
const KNIFE_CHROMA = ['Doppler', 'Marble Fade', 'Tiger Tooth', 'Damascus Steel', 'Rust Coat', 'Ultraviolet'];
const KNIFE_GAMMA = ['Gamma Doppler', 'Lore', 'Autotronic', 'Black Laminate', 'Bright Water', 'Freehand'];

const OLD_ORIGINALS = [...KNIFE_ORIGINALS, 'Night'];
// Less traded knives carry only their better-selling original finishes, to keep the file small.
const CAMO_FINISHES = new Set(['Forest DDPAT', 'Safari Mesh', 'Boreal Forest', 'Urban Masked', 'Scorched']);
const OLD_ORIGINALS_SHORT = OLD_ORIGINALS.filter((f) => !CAMO_FINISHES.has(f));
const NEW_ORIGINALS = [...KNIFE_ORIGINALS, 'Night Stripe'].filter((f) => !CAMO_FINISHES.has(f));

const KNIVES: KnifeDef[] = [
  { name: 'Karambit', mult: 1.0, finishes: [...OLD_ORIGINALS, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'M9 Bayonet', mult: 0.8, finishes: [...OLD_ORIGINALS, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Bayonet', mult: 0.55, finishes: [...OLD_ORIGINALS, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Flip Knife', mult: 0.4, finishes: [...OLD_ORIGINALS, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Gut Knife', mult: 0.2, finishes: [...OLD_ORIGINALS, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Butterfly Knife', mult: 1.1, finishes: [...OLD_ORIGINALS_SHORT, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Huntsman Knife', mult: 0.3, finishes: [...OLD_ORIGINALS_SHORT, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Falchion Knife', mult: 0.25, finishes: [...OLD_ORIGINALS_SHORT, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Bowie Knife', mult: 0.3, finishes: [...OLD_ORIGINALS_SHORT, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Shadow Daggers', mult: 0.2, finishes: [...OLD_ORIGINALS_SHORT, ...KNIFE_CHROMA, ...KNIFE_GAMMA] },
  { name: 'Talon Knife', mult: 0.85, finishes: [...NEW_ORIGINALS, ...KNIFE_CHROMA] },
  { name: 'Stiletto Knife', mult: 0.5, finishes: [...NEW_ORIGINALS, ...KNIFE_CHROMA] },
  { name: 'Ursus Knife', mult: 0.35, finishes: [...NEW_ORIGINALS, ...KNIFE_CHROMA] },
  { name: 'Navaja Knife', mult: 0.18, finishes: [...NEW_ORIGINALS, ...KNIFE_CHROMA] },
  { name: 'Skeleton Knife', mult: 0.75, finishes: NEW_ORIGINALS },
  { name: 'Classic Knife', mult: 0.5, finishes: NEW_ORIGINALS },
  { name: 'Nomad Knife', mult: 0.45, finishes: NEW_ORIGINALS },
  { name: 'Paracord Knife', mult: 0.3, finishes: NEW_ORIGINALS },
  { name: 'Survival Knife', mult: 0.25, finishes: NEW_ORIGINALS },
  { name: 'Kukri Knife', mult: 0.4, finishes: NEW_ORIGINALS },
];

/** Typical Karambit price (Field-Tested-equivalent) per finish; other knives scale by KnifeDef.mult. */
const KNIFE_FINISH_BASE: Record<string, number> = {
  Fade: 1500, Doppler: 950, 'Marble Fade': 1150, 'Tiger Tooth': 950, 'Gamma Doppler': 1050,
  Lore: 900, Autotronic: 700, 'Crimson Web': 700, Slaughter: 800, 'Case Hardened': 650,
  'Damascus Steel': 550, Ultraviolet: 500, Night: 450, 'Night Stripe': 400, 'Blue Steel': 500,
  Stained: 450, 'Bright Water': 450, Freehand: 500, 'Black Laminate': 450, 'Forest DDPAT': 350,
  'Safari Mesh': 330, 'Boreal Forest': 350, 'Urban Masked': 350, Scorched: 330, 'Rust Coat': 380,
};
const VANILLA_BASE = 800;

function knifeWears(finish: string): number[] {
  switch (finish) {
    case 'Fade':
    case 'Doppler':
    case 'Marble Fade':
    case 'Tiger Tooth':
    case 'Gamma Doppler':
      return wearRange('FN-MW');
    case 'Slaughter':
    case 'Bright Water':
    case 'Freehand':
      return wearRange('FN-FT');
    case 'Damascus Steel':
      return wearRange('FN-WW');
    case 'Rust Coat':
      return wearRange('WW-BS');
    default:
      return wearRange(undefined);
  }
}

const DOPPLER_PHASES: Array<[string, number]> = [
  ['Phase 1', 0.9], ['Phase 2', 1.2], ['Phase 3', 0.85], ['Phase 4', 1.1],
  ['Ruby', 4.5], ['Sapphire', 5.5], ['Black Pearl', 3.2],
];
const GAMMA_PHASES: Array<[string, number]> = [
  ['Phase 1', 0.9], ['Phase 2', 1.1], ['Phase 3', 0.85], ['Phase 4', 1.15], ['Emerald', 4.5],
];
const RARE_PHASES = new Set(['Ruby', 'Sapphire', 'Black Pearl', 'Emerald']);

const GLOVES = `
Sport Gloves|Pandora's Box|900
Sport Gloves|Vice|700
Sport Gloves|Hedge Maze|650
Sport Gloves|Superconductor|550
Sport Gloves|Amphibious|450
Sport Gloves|Omega|350
Sport Gloves|Arid|250
Sport Gloves|Bronze Morph|150
Sport Gloves|Big Game|180
Sport Gloves|Scarlet Shamagh|160
Sport Gloves|Slingshot|200
Sport Gloves|Nocts|220
Specialist Gloves|Crimson Kimono|600
Specialist Gloves|Emerald Web|300
Specialist Gloves|Fade|350
Specialist Gloves|Foundation|180
Specialist Gloves|Mogul|160
Specialist Gloves|Marble Fade|280
Specialist Gloves|Forest DDPAT|110
Specialist Gloves|Field Agent|140
Driver Gloves|King Snake|350
Driver Gloves|Crimson Weave|200
Driver Gloves|Lunar Weave|140
Driver Gloves|Imperial Plaid|190
Driver Gloves|Snow Leopard|300
Driver Gloves|Diamondback|120
Driver Gloves|Racing Green|110
Driver Gloves|Overtake|160
Hand Wraps|Cobalt Skulls|220
Hand Wraps|Slaughter|260
Hand Wraps|Leather|100
Hand Wraps|Overprint|140
Hand Wraps|CAUTION!|180
Hand Wraps|Badlands|100
Hand Wraps|Spruce DDPAT|100
Hand Wraps|Arboreal|120
Moto Gloves|Spearmint|320
Moto Gloves|Cool Mint|200
Moto Gloves|POW!|250
Moto Gloves|Turtle|120
Moto Gloves|Polygon|150
Moto Gloves|Eclipse|130
Moto Gloves|Boom!|140
Moto Gloves|Transport|110
Bloodhound Gloves|Charred|110
Bloodhound Gloves|Snakebite|120
Bloodhound Gloves|Bronzed|130
Bloodhound Gloves|Guerrilla|110
Hydra Gloves|Case Hardened|160
Hydra Gloves|Emerald|180
Hydra Gloves|Rattler|100
Hydra Gloves|Mangrove|100
Broken Fang Gloves|Jade|180
Broken Fang Gloves|Yellow-banded|130
Broken Fang Gloves|Unhinged|110
Broken Fang Gloves|Needle Point|110
`;

const CASES: Array<[string, number]> = [
  ['CS:GO Weapon Case', 95], ['CS:GO Weapon Case 2', 14], ['CS:GO Weapon Case 3', 6.5],
  ['Operation Bravo Case', 48], ['eSports 2013 Case', 60], ['eSports 2013 Winter Case', 11],
  ['eSports 2014 Summer Case', 9], ['Winter Offensive Weapon Case', 7], ['Operation Phoenix Weapon Case', 4.8],
  ['Huntsman Weapon Case', 9], ['Operation Breakout Weapon Case', 4.5], ['Operation Vanguard Weapon Case', 4.2],
  ['Chroma Case', 3.9], ['Chroma 2 Case', 3.4], ['Chroma 3 Case', 2.6], ['Falchion Case', 1.6],
  ['Shadow Case', 1.4], ['Revolver Case', 1.5], ['Operation Wildfire Case', 1.9], ['Gamma Case', 2.1],
  ['Gamma 2 Case', 2.0], ['Glove Case', 4.9], ['Spectrum Case', 2.4], ['Spectrum 2 Case', 1.9],
  ['Operation Hydra Case', 22], ['Clutch Case', 0.55], ['Horizon Case', 0.9], ['Danger Zone Case', 0.85],
  ['Prisma Case', 0.75], ['Prisma 2 Case', 0.7], ['CS20 Case', 0.8], ['Shattered Web Case', 4.1],
  ['Fracture Case', 0.3], ['Snakebite Case', 0.28], ['Operation Broken Fang Case', 3.6],
  ['Operation Riptide Case', 3.2], ['Dreams & Nightmares Case', 1.4], ['Recoil Case', 0.08],
  ['Revolution Case', 0.45], ['Kilowatt Case', 0.35], ['Gallery Case', 0.6], ['Fever Case', 0.9],
];

const CAPSULES: Array<[string, number]> = [
  ['Sticker Capsule', 9.5], ['Sticker Capsule 2', 7.8], ['Community Sticker Capsule 1', 14],
  ['Enfu Sticker Capsule', 2.1], ['Half-Life: Alyx Sticker Capsule', 1.3], ['Poorly Drawn Capsule', 0.6],
  ['Warhammer 40,000 Sticker Capsule', 0.9], ['Battlefield 2042 Sticker Capsule', 0.4],
  ['Riptide Surf Shop Sticker Capsule', 0.35], ['Broken Fang Sticker Collection', 0.3],
  ['Stockholm 2021 Legends Sticker Capsule', 1.2], ['Stockholm 2021 Challengers Sticker Capsule', 1.1],
  ['Stockholm 2021 Contenders Sticker Capsule', 1.0], ['Antwerp 2022 Legends Sticker Capsule', 0.6],
  ['Antwerp 2022 Challengers Sticker Capsule', 0.55], ['Antwerp 2022 Contenders Sticker Capsule', 0.5],
  ['Rio 2022 Legends Sticker Capsule', 0.45], ['Rio 2022 Challengers Sticker Capsule', 0.4],
  ['Rio 2022 Contenders Sticker Capsule', 0.38], ['Paris 2023 Legends Sticker Capsule', 0.3],
  ['Paris 2023 Challengers Sticker Capsule', 0.28], ['Paris 2023 Contenders Sticker Capsule', 0.26],
  ['Copenhagen 2024 Legends Sticker Capsule', 0.25], ['Copenhagen 2024 Challengers Sticker Capsule', 0.24],
  ['Copenhagen 2024 Contenders Sticker Capsule', 0.22],
];

interface Major {
  event: string;
  base: number;
  variants: Array<[suffix: string, mult: number, rarity: string]>;
  teams: string[];
  boost?: Record<string, number>;
}

const MAJORS: Major[] = [
  {
    event: 'Katowice 2014',
    base: 60,
    variants: [['', 1, 'High Grade'], ['Holo', 25, 'Remarkable']],
    teams: [
      '3DMAX', 'Clan-Mystik', 'compLexity Gaming', 'Fnatic', 'HellRaisers', 'iBUYPOWER', 'LGB eSports',
      'Natus Vincere', 'Ninjas in Pyjamas', 'Reason Gaming', 'Team Dignitas', 'Team LDLC.com', 'Titan',
      'Virtus.Pro', 'Vox Eminor',
    ],
    boost: { iBUYPOWER: 6, Titan: 3, 'Reason Gaming': 3, 'LGB eSports': 2.5, 'Team Dignitas': 2, 'Vox Eminor': 2 },
  },
  {
    event: 'Cologne 2014',
    base: 6,
    variants: [['', 1, 'High Grade'], ['Foil', 12, 'Exotic']],
    teams: [
      'Ninjas in Pyjamas', 'Fnatic', 'Cloud9', 'Virtus.Pro', 'Team Dignitas', 'Natus Vincere',
      'Team LDLC.com', 'HellRaisers', 'iBUYPOWER', 'Titan', 'Epsilon eSports', 'Copenhagen Wolves',
      'London Conspiracy', 'MTS GameGod Wolf', 'dAT team', 'Vox Eminor',
    ],
  },
  {
    event: 'Stockholm 2021',
    base: 0.45,
    variants: [['', 1, 'High Grade'], ['Holo', 5, 'Remarkable'], ['Foil', 14, 'Exotic'], ['Gold', 45, 'Extraordinary']],
    teams: [
      'Natus Vincere', 'G2 Esports', 'Gambit Gaming', 'Heroic', 'Vitality', 'FaZe Clan', 'Ninjas in Pyjamas',
      'Astralis', 'ENCE', 'Team Liquid', 'Evil Geniuses', 'BIG', 'Copenhagen Flames', 'Movistar Riders',
      'paiN Gaming', 'GODSENT', 'Entropiq', 'Virtus.pro', 'FURIA', 'Renegades', 'Sharks Esports', 'TYLOO',
      'Team Spirit', 'MOUZ',
    ],
  },
  {
    event: 'Antwerp 2022',
    base: 0.3,
    variants: [['', 1, 'High Grade'], ['Glitter', 1.8, 'Remarkable'], ['Holo', 5, 'Exotic'], ['Gold', 35, 'Extraordinary']],
    teams: [
      'FaZe Clan', 'Natus Vincere', 'ENCE', 'Team Spirit', 'Heroic', 'Copenhagen Flames', 'BIG', 'Cloud9',
      'Ninjas in Pyjamas', 'FURIA', 'Vitality', 'Imperial Esports', 'G2 Esports', 'Astralis', 'Team Liquid',
      'MOUZ', 'forZe eSports', 'Outsiders', 'Eternal Fire', 'Bad News Eagles', 'IHC Esports', 'Renegades',
      'Complexity Gaming', '9z Team',
    ],
  },
  {
    event: 'Rio 2022',
    base: 0.25,
    variants: [['', 1, 'High Grade'], ['Glitter', 1.8, 'Remarkable'], ['Holo', 5, 'Exotic'], ['Gold', 30, 'Extraordinary']],
    teams: [
      'Outsiders', 'Heroic', 'Natus Vincere', 'FURIA', 'MOUZ', 'Fnatic', 'Cloud9', 'Ninjas in Pyjamas',
      'FaZe Clan', 'Vitality', 'Team Spirit', 'BIG', 'ENCE', 'Team Liquid', 'Imperial Esports',
      'Bad News Eagles', 'Evil Geniuses', '9z Team', 'Grayhound Gaming', 'IHC Esports',
    ],
  },
  {
    event: 'Paris 2023',
    base: 0.15,
    variants: [['', 1, 'High Grade'], ['Glitter', 1.8, 'Remarkable'], ['Holo', 5, 'Exotic'], ['Gold', 30, 'Extraordinary']],
    teams: [
      'Vitality', 'GamerLegion', 'Heroic', 'Into The Breach', 'Apeks', 'FaZe Clan', 'Natus Vincere',
      'G2 Esports', 'Team Liquid', 'Monte', 'ENCE', 'FURIA', 'Ninjas in Pyjamas', 'Fnatic',
      'Grayhound Gaming', '9INE', 'The MongolZ', 'Complexity Gaming', 'Fluxo', 'paiN Gaming',
    ],
  },
  {
    event: 'Copenhagen 2024',
    base: 0.1,
    variants: [['', 1, 'High Grade'], ['Glitter', 1.8, 'Remarkable'], ['Holo', 5, 'Exotic'], ['Gold', 30, 'Extraordinary']],
    teams: [
      'Natus Vincere', 'FaZe Clan', 'Vitality', 'G2 Esports', 'Team Spirit', 'MOUZ', 'Cloud9', 'Virtus.pro',
      'Eternal Fire', 'FURIA', 'The MongolZ', 'HEROIC', 'Complexity Gaming', 'Team Liquid', 'paiN Gaming',
      'ECSTATIC', 'Imperial Esports', 'GamerLegion', 'Legacy', 'AMKAL ESPORTS', 'KOI', 'Lynn Vision', 'SAW',
      'ENCE',
    ],
  },
];

// Capsule stickers: name, typical USD, rarity.
const GENERIC_STICKERS: Array<[string, number, string]> = [
  ['Sticker | Crown (Foil)', 850, 'Exotic'],
  ['Sticker | Howling Dawn', 420, 'Contraband'],
  ['Sticker | Headhunter (Foil)', 110, 'Exotic'],
  ['Sticker | Flammable (Foil)', 95, 'Exotic'],
  ['Sticker | Swag (Foil)', 90, 'Exotic'],
  ['Sticker | Bish (Holo)', 30, 'Remarkable'],
  ['Sticker | Bash (Holo)', 28, 'Remarkable'],
  ['Sticker | Bosh (Holo)', 26, 'Remarkable'],
  ['Sticker | Banana', 4.5, 'High Grade'],
  ['Sticker | Shooter', 3.2, 'High Grade'],
  ['Sticker | Shooter Close', 3.0, 'High Grade'],
  ['Sticker | Drug War Veteran', 9, 'High Grade'],
  ['Sticker | Lambda', 3.6, 'High Grade'],
  ['Sticker | Nelu the Bear', 2.4, 'High Grade'],
  ['Sticker | Battle Scarred (Holo)', 1.2, 'Remarkable'],
  ['Sticker | Taste Buddy (Holo)', 9, 'Remarkable'],
  ['Sticker | Winged Defuser', 3.4, 'High Grade'],
  ['Sticker | Stay Frosty', 2.1, 'High Grade'],
  ['Sticker | Good Game', 1.8, 'High Grade'],
  ['Sticker | Good Luck', 1.6, 'High Grade'],
  ['Sticker | Have Fun', 1.6, 'High Grade'],
  ["Sticker | Let's Roll-oll", 4, 'High Grade'],
  ["Sticker | Let's Roll-oll (Holo)", 38, 'Remarkable'],
  ['Sticker | Welcome to the Clutch', 2.4, 'High Grade'],
  ['Sticker | Death Comes', 2.2, 'High Grade'],
  ['Sticker | Unicorn', 3.1, 'High Grade'],
  ['Sticker | Unicorn (Holo)', 24, 'Remarkable'],
  ['Sticker | Doomed', 2.2, 'High Grade'],
  ['Sticker | Nice Shot', 2.0, 'High Grade'],
  ['Sticker | Bomb Doge', 0.9, 'High Grade'],
  ['Sticker | Dessert Eagle', 0.4, 'High Grade'],
  ['Sticker | Kawaii Killer CT', 2.5, 'High Grade'],
  ['Sticker | Kawaii Killer Terrorist', 2.5, 'High Grade'],
  ['Sticker | Skull Lil Boney', 0.5, 'High Grade'],
  ['Sticker | Blue Gem (Glitter)', 3.8, 'Remarkable'],
  ['Sticker | Flickshot', 0.6, 'High Grade'],
];

const AGENTS: Array<[string, string, number]> = [
  ['Sir Bloody Miami Darryl | The Professionals', 'Master', 28],
  ['Sir Bloody Darryl Royale | The Professionals', 'Master', 26],
  ['Sir Bloody Skullhead Darryl | The Professionals', 'Master', 24],
  ['Sir Bloody Loudmouth Darryl | The Professionals', 'Master', 22],
  ['Sir Bloody Silent Darryl | The Professionals', 'Master', 20],
  ['Special Agent Ava | FBI', 'Master', 30],
  ["Cmdr. Mae 'Dead Cold' Jamison | SWAT", 'Master', 14],
  ["'The Doctor' Romanov | Sabre", 'Master', 18],
  ['Lt. Commander Ricksaw | NSWC SEAL', 'Master', 16],
  ['Crasswater The Forgotten | Guerrilla Warfare', 'Master', 15],
  ['Vypa Sista of the Revolution | Guerrilla Warfare', 'Master', 13],
  ["Chef d'Escadron Rouchard | Gendarmerie Nationale", 'Master', 12],
  ["Cmdr. Frank 'Wet Sox' Baroud | SEAL Frogman", 'Master', 11],
  ["Cmdr. Davida 'Goggles' Fernandez | SEAL Frogman", 'Master', 10],
  ['Number K | The Professionals', 'Superior', 9],
  ['Safecracker Voltzmann | The Professionals', 'Superior', 7],
  ['Little Kev | The Professionals', 'Superior', 6],
  ['Blackwolf | Sabre', 'Superior', 6],
  ['Rezan The Ready | Sabre', 'Superior', 7],
  ['Michael Syfers | FBI Sniper', 'Superior', 8],
  ["'Two Times' McCoy | USAF TACP", 'Superior', 7],
  ['Elite Trapper Solman | Guerrilla Warfare', 'Superior', 5],
  ['Sous-Lieutenant Medic | Gendarmerie Nationale', 'Superior', 5],
  ['Lieutenant Rex Krikey | SEAL Frogman', 'Superior', 6],
  ["John 'Van Healen' Kask | SWAT", 'Superior', 5],
  ["'Medium Rare' Crasswater | Guerrilla Warfare", 'Superior', 6],
  ['Col. Mangos Dabisi | Guerrilla Warfare', 'Superior', 5],
  ['Prof. Shahmat | Elite Crew', 'Superior', 5],
  ['The Elite Mr. Muhlik | Elite Crew', 'Superior', 6],
  ['Getaway Sally | The Professionals', 'Exceptional', 4],
  ['Buckshot | NSWC SEAL', 'Exceptional', 4],
  ['Markus Delrow | FBI HRT', 'Exceptional', 4],
  ['Dragomir | Sabre', 'Exceptional', 3],
  ['Maximus | Sabre', 'Exceptional', 3],
  ['Bloody Darryl The Strapped | The Professionals', 'Exceptional', 3.5],
  ['Arno The Overgrown | Guerrilla Warfare', 'Exceptional', 3],
  ['1st Lieutenant Farlow | SWAT', 'Exceptional', 3],
  ['Osiris | Elite Crew', 'Exceptional', 3],
  ['Slingshot | Phoenix', 'Exceptional', 3],
  ['Street Soldier | Phoenix', 'Exceptional', 2.5],
  ['3rd Commando Company | KSK', 'Exceptional', 3],
  ['Seal Team 6 Soldier | NSWC SEAL', 'Distinguished', 2],
  ['Primeiro Tenente | Brazilian 1st Battalion', 'Distinguished', 2],
  ['Sergeant Bombson | SWAT', 'Distinguished', 2],
  ['Chem-Haz Specialist | SWAT', 'Distinguished', 1.8],
  ['Bio-Haz Specialist | SWAT', 'Distinguished', 1.8],
  ['Trapper | Guerrilla Warfare', 'Distinguished', 1.6],
  ['Ground Rebel | Elite Crew', 'Distinguished', 1.6],
  ['Jungle Rebel | Elite Crew', 'Distinguished', 1.5],
  ['Soldier | Phoenix', 'Distinguished', 1.4],
  ['Enforcer | Phoenix', 'Distinguished', 1.4],
  ['Operator | FBI SWAT', 'Distinguished', 1.5],
  ['D Squadron Officer | NZSAS', 'Distinguished', 1.7],
  ['B Squadron Officer | SAS', 'Distinguished', 1.7],
];

const MUSIC_KITS: Array<[string, number]> = [
  ['Darude, Moments CS:GO', 9], ['Daniel Sadowski, Crimson Assault', 6], ['Noisia, Sharpened', 7],
  ['Austin Wintory, Desert Fire', 6], ['Skog, Metal', 5], ['Kelly Bailey, Hazardous Environments', 8],
  ['Mord Fustang, Diamonds', 6], ['Sasha, LNOE', 5], ['Troels Folmann, Uber Blasto Phone', 5],
  ['Feed Me, High Noon', 7], ["Dren, Death's Head Demolition", 6], ['AWOLNATION, I Am', 5],
  ["Neck Deep, Life's Not Out To Get You", 4], ['Scarlxrd, King, Scar', 4],
];

const PATCHES: Array<[string, number, string]> = [
  ['Patch | Crazy Banana', 1.2, 'High Grade'], ['Patch | Bloodhound', 0.9, 'Remarkable'],
  ['Patch | Hydra', 1.1, 'Remarkable'], ['Patch | Wildfire', 1.0, 'Remarkable'],
  ['Patch | Lambda', 1.5, 'High Grade'], ['Patch | Vortigaunt', 1.3, 'High Grade'],
  ['Patch | Combine Helmet', 1.4, 'Remarkable'], ['Patch | Headcrab Glyph', 1.2, 'High Grade'],
  ['Patch | CMB', 1.1, 'High Grade'],
];

function csgo(): Book {
  const b = new Book('csgo');
  const rarityFields = (rarity: string) => ({ rarity, rarity_color: CS_RARITY_COLOR[rarity] });

  // Guns.
  for (const raw of CS_SKINS.trim().split('\n')) {
    const [weapon, skin, code, baseStr, flagStr = ''] = raw.split('|') as [string, string, string, string, string?];
    const rarity = RARITY_CODE[code];
    if (!rarity) throw new Error(`bad rarity code in ${raw}`);
    const base = Number(baseStr);
    const flags = flagStr.split(/\s+/).filter(Boolean);
    // StatTrak™ variants of the cheapest Mil-Spec-and-below skins are left out to keep the file small.
    const noStatTrak = flags.includes('n') || (base < 0.35 && ['C', 'I', 'M'].includes(code));
    const souvenir = flags.includes('s');
    const wears = wearRange(flags.find((f) => f.startsWith('w='))?.slice(2));
    const stMult = base < 1 ? 3 : base < 10 ? 2.2 : 1.7;
    const svMult = base < 5 ? 6 : 2.5;
    for (const w of wears) {
      const exterior = EXTERIORS[w]!;
      const plain = `${weapon} | ${skin} (${exterior})`;
      b.add({ market_hash_name: plain, price: usd(vary(b.rng(plain), base * WEAR_MULT[w]!, 0.12)), exterior, ...rarityFields(rarity) });
      if (!noStatTrak) {
        const name = `StatTrak™ ${plain}`;
        b.add({ market_hash_name: name, price: usd(vary(b.rng(name), base * WEAR_MULT[w]! * stMult, 0.15)), exterior, ...rarityFields(rarity) });
      }
      if (souvenir) {
        const name = `Souvenir ${plain}`;
        b.add({ market_hash_name: name, price: usd(vary(b.rng(name), base * WEAR_MULT[w]! * svMult, 0.15)), exterior, ...rarityFields(rarity) });
      }
      if (weapon === 'Glock-18' && skin === 'Gamma Doppler') {
        for (const prefix of ['', 'StatTrak™ ']) {
          for (const [phase, mult] of GAMMA_PHASES) {
            const name = `${prefix}${plain} - ${phase}`;
            const p = base * WEAR_MULT[w]! * mult * (prefix ? stMult : 1);
            b.add({ market_hash_name: name, price: usd(vary(b.rng(name), p, 0.1)), exterior, ...rarityFields(rarity), phase });
          }
        }
      }
    }
  }

  // Knives.
  const knifePrice = (name: string, raw: number, rare: boolean) => {
    const rng = b.rng(name);
    const v = vary(rng, raw, 0.15);
    if (rare) return usd(Math.min(Math.max(v, 300), 9000));
    if (v < 100) return usd(100 + rng() * 40);
    if (v > 2000) return usd(1850 + rng() * 150);
    return usd(v);
  };
  for (const knife of KNIVES) {
    for (const st of [false, true]) {
      const star = st ? '★ StatTrak™ ' : '★ ';
      const stMult = st ? 1.25 : 1;
      const vanilla = `${star}${knife.name}`;
      b.add({ market_hash_name: vanilla, price: knifePrice(vanilla, VANILLA_BASE * knife.mult * stMult, false), ...rarityFields('Covert') });
      for (const finish of knife.finishes) {
        const fb = KNIFE_FINISH_BASE[finish];
        if (fb === undefined) throw new Error(`no base price for knife finish ${finish}`);
        for (const w of knifeWears(finish)) {
          const exterior = EXTERIORS[w]!;
          const name = `${star}${knife.name} | ${finish} (${exterior})`;
          const raw = fb * knife.mult * WEAR_MULT[w]! * stMult;
          b.add({ market_hash_name: name, price: knifePrice(name, raw, false), exterior, ...rarityFields('Covert') });
          const phases = finish === 'Doppler' ? DOPPLER_PHASES : finish === 'Gamma Doppler' ? GAMMA_PHASES : [];
          for (const [phase, mult] of phases) {
            const pname = `${name} - ${phase}`;
            b.add({
              market_hash_name: pname,
              price: knifePrice(pname, raw * mult, RARE_PHASES.has(phase)),
              exterior,
              ...rarityFields('Covert'),
              phase,
            });
          }
        }
      }
    }
  }

  // Gloves (no StatTrak).
  for (const raw of GLOVES.trim().split('\n')) {
    const [glove, finish, baseStr] = raw.split('|') as [string, string, string];
    for (const w of wearRange(undefined)) {
      const exterior = EXTERIORS[w]!;
      const name = `★ ${glove} | ${finish} (${exterior})`;
      const price = usd(Math.max(60, vary(b.rng(name), Number(baseStr) * WEAR_MULT[w]! * 1.2, 0.15)));
      b.add({ market_hash_name: name, price, exterior, ...rarityFields('Extraordinary') });
    }
  }

  // Tournament stickers.
  for (const major of MAJORS) {
    for (const team of major.teams) {
      for (const [suffix, mult, rarity] of major.variants) {
        const label = suffix ? `${team} (${suffix})` : team;
        const name = `Sticker | ${label} | ${major.event}`;
        const boost = major.boost?.[team] ?? 1;
        b.add({ market_hash_name: name, price: usd(vary(b.rng(name), major.base * mult * boost, 0.3)), ...rarityFields(rarity) });
      }
    }
  }
  b.add({ market_hash_name: 'Sticker | ESL Wolf (Foil) | Katowice 2014', price: usd(vary(b.rng('esl-wolf'), 900, 0.2)), ...rarityFields('Exotic') });
  b.add({ market_hash_name: 'Sticker | ESL Skull (Foil) | Katowice 2014', price: usd(vary(b.rng('esl-skull'), 850, 0.2)), ...rarityFields('Exotic') });
  for (const [name, base, rarity] of GENERIC_STICKERS) {
    b.add({ market_hash_name: name, price: usd(vary(b.rng(name), base, 0.15)), ...rarityFields(rarity) });
  }

  // Containers: the sandbox keeps every case and capsule within $0.03-$5 (the rare old cases sit near the cap).
  for (const [name, base] of [...CASES, ...CAPSULES]) {
    const rng = b.rng(name);
    const v = vary(rng, base, 0.1);
    b.add({ market_hash_name: name, price: usd(v > 4.5 ? 4.5 + 0.5 * rng() : v), ...rarityFields('Base Grade') });
  }

  // Agents, music kits, patches.
  for (const [name, rarity, base] of AGENTS) {
    b.add({ market_hash_name: name, price: usd(vary(b.rng(name), base, 0.15)), ...rarityFields(rarity) });
  }
  for (const [kit, base] of MUSIC_KITS) {
    for (const prefix of ['', 'StatTrak™ ']) {
      const name = `${prefix}Music Kit | ${kit}`;
      b.add({ market_hash_name: name, price: usd(vary(b.rng(name), base * (prefix ? 1.8 : 1), 0.15)), ...rarityFields('High Grade') });
    }
  }
  for (const [name, base, rarity] of PATCHES) {
    b.add({ market_hash_name: name, price: usd(vary(b.rng(name), base, 0.15)), ...rarityFields(rarity) });
  }
  return b;
}

// ---------------------------------------------------------------------------------------------
// Rust (workshop / item-store skins; Steam lists them by their plain skin name)
// ---------------------------------------------------------------------------------------------

const RUST_SKINS = `
Addicted Guitarist|Army Acoustic Guitar|Black Acoustic Guitar|No War Guitar
Apocalypse Door|Aristocratic Armored Door|Armored Concrete|Armored Vault Door|Bunker Door|Clockwork Portal|Cobalt Graffiti Door|Corroded Bronze Door|Green Armored Container Door|High Voltage|Incarceration Armored Door|Keep Out Armored Door|Laboratory Armored Door|Military Armored Door|No Escape|Radioactive Armored Door|Safe Room Door|TacCom Security Door|Urban Armored Door
Agony Yellow|Aircraft Parts AK47|AK-47 From Hell|Alien Red|Anubis Ak47|Battle-Scarred AKS47|Betty Lou AK47|Cartagena AK47|Checkpoint AK47|Chivalry AK47|Claw AK47|Cobra|Conquerer AK47|Crimson King|Crypt of Death AK47|Dark Flames|Dead Pirate Rifle|Death in Spades AK47|Diesel AK47|Digital Camo AK47|Doombringer AK47|Epidemic AK47|Farseer AK47|Fate Destroyer|Frost Wolf|Glorious AK|Glory AK47|Golden Drake AK47|Jaws AK47|King of the Jungle AK47|Lonewolf AK47 - Blue|Mandrill|Military Camo AK47|Night Howler AK47|Panther AK47|Piranha AK47|Rabble Rouser AK47|Retro Car Parts AK47|Rumble AK47|Rustpunk AK47|Sandstorm AK47|Santa Muerte|Scrapper AK47|Soul Taker AK47|Talon AK47|Tempered AK47|The Beast AK47|The Beast Of The East|The Reptile|Urban Ice AK47|War Machine AK47|Wyrm Rifle
Black Bandana|Blue Bandana|Checkered Bandana|Creepy Clown Bandana|Desert Camo Bandana|Forest Camo Bandana|Green Bandana|Jawboy|Red Skull Bandana|Road Raider Bandana|Santa Bandana|Skull Bandana|Snow Camo Bandana|Wizard Bandana
Blue Cap|Forest Camo Cap|Friendly Cap|Green Cap|Grey Cap|Oxums Employee Cap|Red Cap|Rescue Cap|Toothy Hat|Top Cap
Black Beenie Hat|Blue Beenie Hat|Green Beenie Hat|Gunner Beanie|Rasta Beenie|Red Beenie Hat|Winter Deers
Army Bolt Rifle|Deadly Rose BAR|Dreamcatcher|Ghost Bolt Rifle|Glory BAR|Great War Service Rifle|Hunter's Bolt|Polymer BAR|Rustpunk Rifle|Sandwar BAR|Smuggler's BAR|Steel and Brass BAR|Survivor BAR|Tundra Bolt Rifle
Carved Club|Little Friend|Maracas Bone Club|Sacrificial Club|Demonic Deer Skull|The Plague Doctor|Uprising Deer Skull Mask
Etched Edge Bone Knife|Flesh Knife|Paititi Bone Knife|Sacrificial Knife|Studded Bone Knife
Farmer Hat|Fisherman Boonie Hat|Flower Hat|Hunted Hat|Leather Boonie Hat|PVC Hat
Arctic Wolf Boots|Armored Boots|Army Armored Boots|Army Black Boots|Army Boots|Black Boots|Bloody Boots|Caravanner Boots|Combat Boots|Explorer Boots|Hazard Move Boots|Metalhunter Boots|Muddy Boots|Punk Boots|Rock Star Boots|Scavenged Sneaker Boots|Sky Seal Boots|Stalker Boots|Tactical Boots|Tailgunner Boots|Tan Boots|Wasteland Hunter Boots|Yellow Race Boots
Graffiti Bucket Helmet|Green Riveted Bucket Helmet|Medic Helmet|Punk Bucket|Road Cone Helmet|Roasted Bucket Helmet|Rusty Bucket Helmet|Smilin' Jack|Sunrise Bucket Helmet|Super Happy Bucket|The King's Bucket|Wooden Bucket
Anarchy|Brotherhood Headwrap|Crimson Headwrap|Outlaw Headwrap|SandPrince|Shinobi Cowl
Biker Dad|Blacksmith Shirt|Burlap and Leather Vest|Captain's Vest and Shirt|Caravanner Shirt|Desert Outlaw Burlap Shirt|It is Wednesday, my dudes|Pirate Vest & Shirt|Rioter's Jacket|Road Raider Shirt|Santa's Helper Shirt|Sleazy Rider|Whens Whip?
Broken Ankles Cast|Burlap Ninja Slippers|Blacksmith Pants|Desert Outlaw Burlap Pants|Recycled Tarp Pants|Rioter's Pants|Road Raider Pants
Antique Dining Chair|Danger Chair|Glory Throne|Muerto Chair|Red Leather Chair|Rusty Iron Throne|Yellow Ornate Chair
Apocalypse Helmet|Army Armored Helmet|Cobalt Armor Helmet|Defender Helmet|Desert Patrol Helmet|Epidemic Helmet|Funhouse Helmet|Junkyard Samurai Helmet|Lizard Skull|Loot Leader Helmet|Mad Helmet|Metalhunter Can Helmet|Nordic Beast Helmet|Plywood Helmet|Roadsign Warrior Helmet|Rusty Coffee Can Helmet|Saboteur's Can Helmet|Samurai Kabuto|Scrap Hazard Helmet|Scrapper Helmet|Skull Hazard|Spare Parts|Sunrise Helmet|Utilizer Helmet|Warboy Helmet|Welding Helmet
Metal Barricade|Military Barricade|Outpost Concrete Barricade|Railway Barricade|Road Barrier
Ancient Artifact Crossbow|Chrome Crossbow|Dead Man Crossbow|Doomwing Crossbow|Engraved Crossbow|Gurkha Crossbow|Hawk Crossbow|HazardCross|Lone Wulf Crossbow|Marauder|Northwind Crossbow|Phoenix Crossbow|POP Crossbow|Primal Crossbow|Ronin|Tank Crossbow
Alien Relic SMG|Anarchy SMG|Bandito SMG|Bone Shaman SMG|Dark Flames SMG|Engineer SMG|Finish Line SMG|Firestarter Custom SMG|Hailstorm SMG|Hunter SMG|Looter's SMG|Polymer SMG|Safari SMG|Survivor SMG|Tank SMG|tRUSTy Friend
Aircraft Parts DBS|Bespoke DBS|Caution DBS|Double Trouble DBS|Grandfather DBS|Heat Double Shotgun|Hellion DBS|Industrial DBS|Last Hero DBS|Military Boomstick|Nitro-Maniac DBS|Quick Death DBS|Saboteur DBS|Santa's Boomstick|Steam DBS|Vigilante DBS|Whopper DBS
Banana Eoka|Birch Eoka|Flintlock|Gurkha Eoka|Japanese Tanegashima|Nordic Relic|Primal Gun
Fire and Brimstone Grenade|Smile Grenade|Unholy Grenade|Voodoo Grenade
Aircraft Parts Fridge|Biohazard Fridge|Urban Fridge|Victorian Food Vault
Ancient Furnace|Angry Furnace|Aztec Furnace|Blacksmith Furnace|Brutal Furnace|Cannibal Furnace|Christmas Furnace|Furnace of the Shaman|Hydraulic Furnace|Iron Forge|Military Furnace|Mosaic Furnace|Potbelly Furnace|Ritual Furnace|Snowboy|Totem Furnace|Urban Furnace|Victorian Furnace
Checkpoint Door|Chop Shop Garage Door|Cobalt Space Door|Defense Garage Door|Factory Rolling Door|Reactor Room 3 of 10|Rolling Exit Door|Trash Garage Door
Aztec Jade Hammer|Builders Guild Hammer|Dead Hammer|Frost Hammer|God Of Builders Hammer|Kitchen Tile Hammer|Museum Raider Hammer|Riveted Hammer|Scorched Hammer|Trap Base Weaver|Welded Hammer
Ancient Artifact Hatchet|Beast Hunter Hatchet|Damascus Steel Hatchet|Eater Hatchet|Fenrir Hatchet|Firefighter Hatchet|Full Metal Hatchet|Golden Axe|Hatchet of Antiquities|Hunter Hatchet|Iron Jaws Hatchet|Iron Wing|Leather Hatchet|Macbeth Hatchet|Military Hatchet|Modern Lumberjack Hatchet|Notorious Hatchet|Ornate Axe|Polynesian War Axe|Prospector's Hatchet|Raider Hatchet|Red Chopper|Refined Hatchet|Replacement Blade Hatchet|Scrapper Hatchet|Shinobi Hatchet|Siege Breaker|Snow Valley Hatchet|Soul Collector Hatchet|Soulburn Hatchet|Spider King Hatchet|Sunrise Hatchet|Survivor Hatchet|Tomb Hatchet|Tribal Hatchet|Veteran Hatchet|Vikings Tomahawk|Vintage Hatchet|Virulent Hatchet|Widowmaker Hatchet
Native American Hide Shoes|Rudolph Slippers|Uprising Hide Shoes|Caution Tape Top|Leopard Top|Uprising Hide Pants|Camo Netting|Grey Wolf Hide Poncho|Toymaker Poncho|Uprising Hide Poncho|Blue Tarp Skirt|Irish Kilt|Celtic Hide Shirt
Arctic Wolf Hoodie|Army Armored Hoodie|BCHILLZ! Hoodie|Black Hoodie|Bloody Hoodie|Blue Hoodie|Charitable Rust 2017 Hoodie|Chekist's Hoodie|Conquistador Hoodie|Cuda87 Hoodie|Denim Studded Hoodie|Desert Conqueror Hoodie|Explorer Hoodie|Firefighter Hoodie|Gang Leader Hoodie|Green Hoodie|Huntsman Hoodie|Leather Strapped Hoodie|Looter's Hoodie|Metalhunter Hoodie|Nordic Beast Hoodie|Official Vertiigo Hoodie|Predator Hoodie|Prospector's Hoodie|Ranger's Vest|Regulator's Hoodie|Revolution Hoodie|Rhinocrunch Hoodie|Rocket Factory Crew Hoodie|Safety Crew|Savage Jacket|Scudpunk Hoodie|Skeleton Hoodie|Sky Seal Hoodie|Stalker Hoodie|Tailgunner Hoodie|Tank Crew Hoodie|Unknown Territory Hoodie|Urban Ice Hoodie|Wasteland Hunter Hoodie|Worker Hoodie|Yellow Police Jacket|Yellow Racer Hoodie
Burglar Mask|Burlap Brains Balaclava|Desert Camo Balaclava|Double Yellow Balaclava|Executioner Latex|Forest Camo Balaclava|Frankenstein Mask|Knitted Balaclava|Meat Mask|Murica Balaclava|Nerd Glasses|Nightmare Balaclava|Red Check Balaclava|Rorschach Skull|Rotten Scalp|Santa Balaclava|Skin Balaclava|Stitched Skin|The Rust Knight|Toupee|Valentine Balaclava|Zipper Face
Blue Jacket|Desert Jacket|Fire jacket|Green Jacket|Hunting Jacket|Multicam Jacket|Provocateur Jacket|Red Jacket|Snowcamo Jacket|Urban Camo Jacket|Urban Ice Jacket
Ammo Box|Ammo Wooden Box|Aztec Gold Chest|Aztec Trunk|Bone Collector Box|Cabin Chest|Captain's Treasure|Carpenter's Chest|Charitable Rust 2017 Relief Crate|Childhood Toolbox|Christmas Holiday LWB|Christmas Storage|Components Storage|D.O.A Trunk|Danger Box|Dead Pirates Chest|Eisensheet Box|Explosives Box|Fire Hose Box|First Aid Green|First Aid Large Box|Food Box Large|Forgotten Temple Box|Gun Box|Hazard Crate|Ichtaca Treasure Box|Idolized Toolbox|Large Stone Box|Leather Bound Trunk|Lone Wolf Chest|Long Hauler's Trunk|Medieval Box|Metropolitan Trunk|Military Crate|Mini Nuke Case|Muertos Chest|Padded Armor Trunk|Pandora's box|Recyclables Box|Royal Wooden Box|Salvaged Cargo Box|Scrapper Storage Chest|Trash Box|Urban Large Wood Storage|Vaccine box|Weapons Box|Wyrm Chest
Arctic Wolf Gloves|Army Armored Gloves|Black Alligator|Boxer's Bandages|Bruiser Gloves|Caravanner Gloves|Duelist Gloves|Firefighter Gloves|Junklord Gloves|Merciless Gloves|Metalhunter Gloves|Motorcycle Gloves|Sky Seal Gloves|Space Rocket Work Gloves|Stalker Gloves|Tailgunner Gloves|Wasteland Hunter Gloves
Army Locker|Cobalt Security Locker|Grid Locker|Muertos Locker|Permanent Detention
Aztec Long T-Shirt|Battle Worn Long TShirt|Black Longsleeve T-Shirt|Christmas Elf|Christmas Jumper|Creepy Jack|Frankensteins Sweater|Green Checkered Shirt|Grey Longsleeve T-Shirt|Lawman|Merry Reindeer|Nightmare Sweater|Orange Longsleeve T-Shirt|Sign Painter|Varsity Jacket|Yellow Longsleeve T-Shirt
Aztec Macuahuitl|Danger Fork|Hot-tempered Longsword|Kryss Longsword|Wakizashi|Xtreme Sword
Chainmail|Chest Resistance|Conquistador Chest Plate|Engineer's Chest Plate|Flak Vest - Green|Forest Camo Chest Plate|Hazardous Grater Chest Plate|Hornet Chestplate|Looter's Chain and Plate|Machina Plate|Metal Barrel Chest Plate|Metalhunter Chest Plate|Oil Barrel Chest Plate|Plate Carrier - Black|Press Vest|Racing Stripes Chest Plate|Retro Car Parts Chestplate|Salvaged Plating Armor|Space Rocket Chest Plate|War Machine Chestplate|Warface Chestplate
Army Armored Facemask|Army Facemask|Aztek Night Hunter|Big Grin|Blingin Grill|BoltFace Metal Facemask|Bronze War Mask|Bruiser Facemask|Carbon Facemask|Clan Leader Mask|Conquistador Face Mask|Death Facemask|Deathwing Facemask|Diesel Facemask|Elder's Metal Facemask|Flesh Facemask|Frostbite|Glowing Metal Pumpkin Mask|Glowing Skull|Heavy Industry|Human Sacrifice Mask|Hunter Mask|Industrial Protection Mask|Juggernaut Mask|Looter's Mask|Machina Mask|Mask of Sacrifice|Metalhunter Facemask|Metalmute Facemask|Mosaic Mask|Overlord Mask|Punishment Mask|Red Dead Jester|Rusted Smile|Sacrificial Mask|Savage Facemask|Scavenger Facemask|Scrapyard Curse|Space Rocket Face Mask|Stainless Facemask|Steampunk Leather Mask|Sunrise Metal Facemask|Tank Crew Facemask|Tempered Mask|Templar|War Machine Mask|Warface Mask|Where Eagles Dare
Army Miner Hat|Train Conductor Miner's Hat|Workman's Safety Hat
Arctic Wolf MP5|Dead Fish MP5|Digital Camo MP5|Elite Mp5|Military Camo MP5|Nomad MP5|Polymer MP5|Spitfire MP5|Tank MP5|Tempered Mp5|Urban Camo MP5|Wild Flame MP5|Wild Tiger MP5
Arctic Wolf Pants|Army Armored Pants|Blue Jeans|Blue Track Pants|Caravanner Pants|Chekist's Pants|Conquistador Pants|Desert Conqueror Pants|Explorer Pants|Firefighter Pants|Forest Camo Pants|Huntsman Pants|Metalhunter Pants|Nordic Beast Pants|Old Prisoner Pants|One Percenter Chaps|Predator Pants|Prospector's Pants|Punk Rock Pants|Revolution Jeans|Santa's Helper Pants|Savage Pants|Sky Seal Pants|Snow Camo Pants|Stalker Pants|Steppe Camo Pants|Tailgunner Pants|Tank Crew Pants|Urban Camo Pants|Urban Ice Pants|Wasteland Hunter Pants|Worker Pants|Yellow Racer Pants
Ancient Artifact Pick Axe|Damascus Steel Pickaxe|Elegant Pick Axe|Fenrir Pickaxe|Gold Digger|Leather Pick Axe|Military Pick Axe|Ornate Pick Axe|Prospector's Pickaxe|Rescue Pick Axe|Shinobi Pick Axe|Tarnished Sun Pick Axe|Tomb Pickaxe|Virulent Pick Axe
Chieftain Pump Shotgun|Conquerer Shotgun|Frostfire Shotgun|Head Hunter Shotgun|Loot Leader Shotgun|Modern Knight Shotgun|Native Gold|Native Yellow|Polymer Pump Shotgun|Problem Solver Stick|Rebel Shotgun|Royalty Pump Shotgun|Tank Pump Shotgun|The Billy Baroo|The Swampmaster|Urban Afterburn Pump Shotgun
Black Mamba|Cold Hunter Python|Dark Silver Python|Devourer|Engraved Python|Holy Python|Hot Battle Steel|Necromancer Python|Outlaw Python|Phantom|Punk Python|Relict Python|Steam Python|Trausi's Python|Warstory Python|Widowmaker Python
Led Light Target|On Target
Bandito Revolver|Death Viper|Defender|Devourer Revolver|Duelist Revolver|Dynamo Revolver|Eightball|Firefighter Revolver|Forest Guardian Revolver|Frostbitten Revolver|Handmade Revolver|Hot-tempered Revolver|Junkyard Revolver|Outback revolver|Outlaw Revolver|Patriot Revolver|Phantom Revolver|Pink Grunge|Rebel Revolver|Shamanism Revolver|Sting Revolver|Tribal Revolver|Western Revolver Gold
Biker Goth Helmet|Blast Shield Helmet|Born To Loot|Captain's Helmet|Checkpoint Riot Helmet|Digger Helmet|Furious Raider Riot Helmet|Hardline Helmet|Medical Riot Helmet|Raider Helmet|Ruthless Riot Helmet|Yellow Racer Helmet
Apocalypse Vest|Army Sign Vest|British Sign Vest|Chopshop Body Armor|Cobalt Armor Vest|Deathwing Vest|Defender Vest|Desert Patrol Vest|Diesel Roadsign Vest|Epidemic Roadsign Vest|Freebooter Vest|Hazard Protection Vest|Heavy Alloy Vest|Junker's Vest|Junkyard Samurai Vest|Loot Leader Vest|Mad Vest|Metalhunter Roadsign Vest|Nordic Beast Vest|Patchwork Cuirass|Plywood Vest|Raider Roadsign Vest|Saboteur's Vest|Samurai Dou|Scrap Hazard Vest|Scrapper Vest|Spiked Metal Vest|Tank Crew Roadsign Vest|The Last Viking Vest|Utilizer Vest|Wasteland Legionnaire
Apocalypse Kilt|Army Sign Kilt|British Sign Pants|Chopshop Kilt|Cobalt Armor Pants|Deathwing Pants|Defender Pants|Desert Patrol Pants|Diesel Roadsign Pants|Epidemic Roadsign Pants|Freebooter Pants|Hazard Cover Pants|Heavy Alloy Pants|Junker's Kilt|Junkyard Samurai Pants|Loot Leader Pants|Mad Pants|Metalhunter Roadsign Pants|Military Camo Roadsign Kilt|Nordic Beast Kilt|Patchwork War Kilt|Plywood Kilt|Raider Roadsign Pants|Saboteur's Pants|Samurai Haidate|Scrap Hazard Kilt|Scrapper Pants|Spiked Metal Kilt|Tank Crew Roadsign Pants|Utilizer Pants
Ancient World Rock|Barb Wire Rock|Fresh Brain|Frozen Turkey|Gold Rock|Hot Potato|Junkyard Rock|Meteorite|Mossy Fossil|My Only Friend|Ripe Watermelon|Shard of True Ice|Sharptooth
Aircraft Parts RL|Army Surplus Rocket Launcher|Beans Cannon|Glass Cannon|Hot Topic|KNOCK KNOCK|Surge Rocket Launcher|ThatGermanGuy Warhawk|Wood Barreled
Rubber Hazard Mat|Rustmas Rug|Soviet Carpet|Tailor\`s Carpet|Tarp Rug|Panda Rug
Dark Arts Icepick|Inferno Hazard Salvaged Icepick|Lavapick|Raven|Rocket Scrap Salvaged Pickaxe|Runic Ice Pick|Stinger Icepick|Voodoo Daddy Icepick
Fallen Knight|Metal Roses Short Sword|Roadsign Sword|Rusty Blade|Scraptooth Sword|Sheet Metal Sword|Spartan Sword|Toothed Sword|Trained To Kill|Trash Sword|Wooden Sword
Grandmother's Gift Barricade|Bad News|BadaBoom Satchel Charge|Box O Love|Close Enough|Military Satchel Charge|Red Leather Day
Aircraft Parts SAP|Armageddon SAP|Base Invaders SAP|Bitin' Dog SAP|Checkpoint SAP|Chrome SAP|Contamination Pistol|Croc Shot|Demonic Pistol|Desert Hunter|Dime Bag SAP|Direct Threat SAP|Faded SAP|Fang|Fight Like a Girl|Fire Walk SAP|Golden Dragon|Golden Leaf SAP|Halloween Bat|Khalifa SAP|Last Eclipse SAP|LCD Marine Sidearm|Looter's SAP|Nightmare|Nishikigoi SAP|Oink SAP|Ol' Greasy|Paint Rush SAP|Polymer SAP|Poseidon Semi Auto Pistol|Reaper Note Pistol|Red Shine Pistol|Retro Car Parts SAP|Salt Shaker SAP|Silent Sting SAP|Soul Eater SAP|Sting SAP|Sunrise SAP|Tehno Pistol|Triad SAP|Yellow Racer SAP
Army SAR|Aztec SAR|Bandito SAR|Blood Dragon Rifle|Fire Starter SAR|Forgotten Warfare SAR|Freedom SAR|Glory SAR|Gunsmith SAR|Hazard Semi Auto Rifle|Hellcat SAR|Hero's SAR|Meridian SAR|Nightmare SAR|Pharaoh SAR|Saboteur Rifle|SAR Scarecrow|Scrapper SAR|Snakebite SAR|Soulburn SAR|Soulkeeper SAR|Sublime SAR|Suzy-Q SAR|To Hell And Back|Urban Light SAR|Warbeast SAR|Workbench SAR
Ambulance Door|Antique Metal Door|Army Metal Door|Aztec Door|Aztec Gold Door|Blacksmith's Door|Blue Puzzle Door|Brass Sentinel Door|Brutal Door|Dead Room Door|Death Crypt Door|Doomsday Door|Door to Death|Dragon Relic Door|Eisensheet Door|Engineer's Door|Fire Truck Door|Fretwork Door|Grey Fire Door|Grid Door|Halloween Door|Hazard Metal Door|Hideout Door|Jeweler's Security Door|KEEP OUT|Laboratory Door|Locomotive Door|Lost Metal Door|Lost Treasure Door|Metal Shutter Door|Metalshop Scrap Door|Military Vehicle Door|Polar Station Door|Prison Door|Quarantine Door|Recycled Garage Door|Roadsign Door|Salvaged APC Door|Salvation Door|School Bus Door|Scrap Robot Door|Scrap Tanker Door|Shipping Container Door|Submarine Door|Truck Door
Autumn Hunter's Shirt|Charitable Rust 2016 Shirt|Green Lumberjack|Red Lumberjack|Sergeant Shirt|Survival Shirt|The Blue Death|Camo Shorts|Cutoff Shorts|Homemade Shorts|Snow Camo Shorts
Aston Christmas|Bear Bag|Blue Plaid Sleeping Bag|Cannibal Survival Bag|Caravanner Bedroll|Christmas Bag|Christmas Holiday Bag|Cobalt Survival Bag|Fisher Sleeping Bag|Freefolk Bedroll|Freshly Dug Grave|Horror Bag|Jungle Camo Sleeping Bag|Muertos Sleeping Bag|Nuke Bag|Ranger Bedroll|Red Survival Sleeping Bag|Sleep Catcher|Spooky Pumpkin Bed|Star Bedroll|Supply Drop Sleeping Bag
`;

/** Well-known expensive Rust skins get a realistic anchor; the rest are log-uniform. */
const RUST_ANCHORS: Record<string, number> = {
  'Punishment Mask': 320, 'Big Grin': 140, 'Tempered AK47': 45, 'Alien Red': 38, 'Glory AK47': 40,
  'Tempered Mask': 28, 'Tempered Mp5': 12, 'Glowing Skull': 30, Frostbite: 18, 'Sacrificial Mask': 22,
  'Rainbow Pony Hoodie': 30, 'Cobalt Space Door': 25, 'Looter\'s Mask': 9, 'No Escape': 14,
  'Blackout Hoodie': 35, 'Whiteout Kilt': 20, 'Creepy Clown Bandana': 12, 'Horror Bag': 8,
  'Gold Rock': 6, 'Golden Axe': 5, 'Dead Fish MP5': 7, 'Pandora\'s box': 3,
};

function rust(): Book {
  const b = new Book('rust');
  for (const line of RUST_SKINS.trim().split('\n')) {
    for (const raw of line.split('|')) {
      const name = raw.trim();
      if (!name) continue;
      const rng = b.rng(name);
      const anchor = RUST_ANCHORS[name];
      const price = anchor !== undefined ? vary(rng, anchor, 0.12) : logUniform(rng, 0.06, 14);
      b.add({ market_hash_name: name, price: usd(price) });
    }
  }
  return b;
}

// ---------------------------------------------------------------------------------------------
// Dota 2
// ---------------------------------------------------------------------------------------------

const DOTA_RARITY_COLOR: Record<string, string> = {
  Common: 'b0c3d9',
  Uncommon: '5e98d9',
  Rare: '4b69ff',
  Mythical: '8847ff',
  Legendary: 'd32ce6',
  Ancient: 'eb4b4b',
  Immortal: 'e4ae39',
  Arcana: 'ade55c',
};

// name | rarity | typical USD
const DOTA_ITEMS = `
Manifold Paradox|Arcana|27
Exalted Manifold Paradox|Arcana|45
Autographed Manifold Paradox|Arcana|32
Bladeform Legacy|Arcana|30
Exalted Bladeform Legacy|Arcana|48
Frost Avalanche|Arcana|25
Swine of the Sunken Galley|Arcana|14
Inscribed Swine of the Sunken Galley|Arcana|17
Exalted Swine of the Sunken Galley|Arcana|22
Demon Eater|Arcana|38
Exalted Demon Eater|Arcana|55
Fractal Horns of Inner Abysm|Arcana|32
Exalted Fractal Horns of Inner Abysm|Arcana|50
Blades of Voth Domosh|Arcana|28
Tempest Helm of the Thundergod|Arcana|26
Fiery Soul of the Slayer|Arcana|24
Feast of Abscession|Arcana|35
Great Sage's Reckoning|Arcana|29
Eminence of Ristul|Arcana|31
Planetfall|Arcana|27
Compass of the Rising Gale|Arcana|28
Flockheart's Gamble|Arcana|30
Dread Retribution|Arcana|33
Benevolent Companion|Arcana|26
Diabolic Aspect|Immortal|80
Dark Artistry Cape|Immortal|100
Axia of Metira|Immortal|55
Armor of the Demon Trickster|Immortal|33
Mask of the Demon Trickster|Immortal|21
Hair of the Survivor|Immortal|31
Avowance of the Veiled Ones|Immortal|26
Codicil of the Veiled Ones|Immortal|9.5
Soul Diffuser|Immortal|21
Golden Hydrakan Latch|Immortal|22
Inscribed Golden Hydrakan Latch|Immortal|22
Hydrakan Latch|Immortal|1.2
Inscribed Hydrakan Latch|Immortal|1.6
Genuine Eternal Radiance Blades|Immortal|20
Golden Full-Bore Bonanza|Immortal|19
Full-Bore Bonanza|Immortal|0.9
Inscribed Full-Bore Bonanza|Immortal|1.3
Inscribed Righteous Thunderbolt|Immortal|11
Righteous Thunderbolt|Immortal|8
God’s Mercy|Immortal|12
Origin of the Unmaking|Immortal|10
Dam’arakan Muzzle|Immortal|10.5
Mulctant Pall|Immortal|9.8
Genuine Molten Claw|Immortal|7.9
Infused Blade of the Fractured Order|Immortal|7.7
Provocation of Ruin Belt|Immortal|8.7
Golden Scavenging Guttleslug|Immortal|7.5
Scavenging Guttleslug|Immortal|0.6
Inscribed Scavenging Guttleslug|Immortal|0.9
Baby Roshan|Rare|7.8
Golden Baby Roshan|Immortal|180
Platinum Baby Roshan|Immortal|650
Desert Sands Baby Roshan|Immortal|45
Jade Baby Roshan|Immortal|60
Honey Heist Baby Roshan|Immortal|25
Gingerbread Baby Roshan|Immortal|30
Genuine Bloodfeather Wings|Immortal|6.6
Infernal Chieftain|Immortal|5.8
Hunter’s Hoard|Immortal|5.5
Genuine Wyvernguard Edge|Immortal|5.3
Concord Dominion|Immortal|5.5
Bonkers of Awaleb|Immortal|4.7
World Chasm Artifact|Immortal|4.9
Golden Offhand Basher of Mage Skulls|Immortal|4
Offhand Basher of Mage Skulls|Immortal|0.5
Inscribed Offhand Basher of Mage Skulls|Immortal|0.7
Basher of Mage Skulls|Immortal|0.9
Golden Basher of Mage Skulls|Immortal|6.5
Inscribed Basher of Mage Skulls|Immortal|1.2
Focal Resonance|Immortal|3.7
Glaive of Oscilla|Immortal|3.9
Helm of the Savage Monger|Immortal|4.2
Armor of the Savage Monger|Immortal|2.4
Roost of the Winter Raven - Head|Immortal|3.5
Nothlic Burden|Immortal|3.7
Bracers of Aeons|Immortal|3.6
Jewel of Aeons|Immortal|0.6
Inscribed Jewel of Aeons|Immortal|0.8
Latticean Shards|Immortal|3.5
Hood of the Bladeform Aesthete|Immortal|4.3
Alluvion Prophecy|Immortal|3.2
Origins of Faith|Immortal|3.1
Primal Paean|Immortal|3.1
Monarch of the Sapphire Glen|Immortal|3.4
Bitter Lineage|Immortal|3
The Strings of Suradan|Immortal|2.8
Helm of the Honored Servant of the Empire|Immortal|3
Secondhand Sorcery - Weapon|Immortal|2.8
Secondhand Sorcery - Back|Immortal|0.5
Mace of the Chosen|Immortal|3.4
Golden Shadow Masquerade|Immortal|2.7
Shadow Masquerade|Immortal|0.9
Inscribed Shadow Masquerade|Immortal|1.1
Dipper the Destroyer|Immortal|2.7
Gimlek Decanter|Immortal|2.9
Piston Impaler|Immortal|2.6
Magus Apex|Immortal|2.4
Mount of the Winged Sentinel|Immortal|2.5
Auspice of the Whyrlegyge|Immortal|2.5
Golden Ice Blossom|Immortal|2.5
Ice Blossom|Immortal|1.2
Inscribed Ice Blossom|Immortal|1.4
Mantle of the Cinder Baron|Immortal|2.1
Autographed Shock of the Anvil|Immortal|2.5
Shock of the Anvil|Immortal|1.4
Solar Gyre|Immortal|2.1
Golden Cyrridae|Immortal|2.2
Crimson Cyrridae|Immortal|0.7
Cyrridae|Immortal|0.4
Almond the Frondillo|Mythical|2.2
Chaos Arbiter|Immortal|2.2
Pulsar Remnant|Immortal|2.2
Aberrant Observer - Hook|Immortal|2.1
Razzil’s Midas Knuckles|Immortal|1.6
Inscribed Razzil’s Midas Knuckles|Immortal|2.1
Golden Bloodfeather Feast|Immortal|2.1
Bloodfeather Feast|Immortal|0.5
Inscribed Bloodfeather Feast|Immortal|0.7
Paraflare Cannon|Immortal|2
Sylvan Cascade|Immortal|2
Tines of Tybara|Immortal|1.8
Mandate of the Stormborn|Immortal|2
Solar Forge|Immortal|1.9
Bonkers the Mad|Immortal|1.2
Inscribed Bonkers the Mad|Immortal|1.6
The Spoils of Dezun|Immortal|1.7
Mantle of the Whispered Bond|Immortal|1.5
Taunt: Fiendish Swag!|Immortal|1.5
Orb of Deliverance|Immortal|1.3
Golden Piscean Pulverizer|Immortal|1.5
Piscean Pulverizer|Immortal|0.4
Inscribed Piscean Pulverizer|Immortal|0.6
Yulsaria’s Glacier|Immortal|1.4
Yulsaria’s Mantle|Immortal|0.2
Vigil Signet|Immortal|1.4
Inscribed Vigil Signet|Immortal|1.5
Golden Immortal Pantheon|Immortal|1.4
Immortal Pantheon|Immortal|0.3
Inscribed Immortal Pantheon|Immortal|0.4
Iron Surge|Immortal|1.2
Peregrine Flight|Immortal|1.1
Golden Draca Maw|Immortal|1.2
Draca Maw|Immortal|0.35
Inscribed Draca Maw|Immortal|0.5
Moonfall|Immortal|1.2
Inscribed Moonfall|Immortal|1.3
Golden Moonfall|Immortal|9
Wings of the Saccharine Saboteur|Immortal|1.3
Atomic Ray Thrusters|Immortal|0.9
Inscribed Atomic Ray Thrusters|Immortal|1.2
Armor of the Abyssal Scourge|Immortal|1.1
Daughters of Hydrophiinae|Immortal|1.1
Fluttering Breeze - Head|Immortal|1.1
Transversant Soul|Immortal|1
Shearing Deposition|Immortal|1
Golden Profane Union|Immortal|1
Profane Union|Immortal|0.3
Inscribed Profane Union|Immortal|0.45
Golden Edge of the Lost Order|Immortal|1
Edge of the Lost Order|Immortal|0.3
Inscribed Edge of the Lost Order|Immortal|0.45
Baneful Devotion|Immortal|1
Pale Augur|Immortal|1
Chasm of the Broken Code Armor|Immortal|1
Shatterblast Rule|Immortal|1
Severing Lash|Immortal|1
Wings of Daybreak|Immortal|0.8
Golden Deepshock Destroyer|Immortal|0.8
Deepshock Destroyer|Immortal|0.25
Inscribed Deepshock Destroyer|Immortal|0.35
Unbroken Fealty|Immortal|0.8
Span of Black Nihility|Immortal|0.6
Crown of Tears|Immortal|0.7
Symbol of the King Restored|Immortal|0.8
Song of the Shadow Dragon - Head|Immortal|1.5
Inscribed Song of the Shadow Dragon - Head|Immortal|2
Maraxiform’s Fate|Immortal|0.25
Cursed Helmet of Endless Havoc|Immortal|0.6
Helmet of Endless Havoc|Immortal|0.3
Cursed Claddish Voyager’s Helm|Immortal|0.8
Claddish Voyager’s Helm|Immortal|0.4
Cursed Blades of the Predator|Immortal|0.07
Blades of the Predator|Immortal|0.05
Taunt: Make It Rain|Immortal|0.9
Blossom of the Merry Wanderer|Immortal|0.14
The Eyes of Avilliva - Radiant Towers|Legendary|0.8
The Gaze of Scree’Auk - Dire Towers|Legendary|0.65
Crownfall - Radiant Creeps|Legendary|0.55
Crownfall - Dire Creeps|Legendary|0.38
Crownfall - Radiant Siege Creeps|Legendary|0.2
Crownfall - Dire Siege Creeps|Legendary|0.2
Bladeform Legacy - Mask|Arcana|0.35
Feast of Abscession - Back|Arcana|0.5
Scale of Bitter Spoil|Immortal|0.1
Gambits of Nishai Helm|Immortal|0.5
Paragon’s Pride|Immortal|0.7
Taunt: The Master Juggles|Immortal|0.55
Cursed Nomad’s Shelter|Immortal|0.07
Nomad’s Shelter|Immortal|0.05
Tempest Revelation|Immortal|0.6
Golden Eye of Ix’yxa|Immortal|0.3
Eye of Ix’yxa|Immortal|0.1
Inscribed Eye of Ix’yxa|Immortal|0.15
Genuine Moon Griffon|Immortal|0.7
Progenitor’s Bane|Immortal|0.28
Claws of Nuranu|Immortal|0.07
Golden Twilight Schism|Immortal|0.28
Twilight Schism|Immortal|0.1
Inscribed Twilight Schism|Immortal|0.15
Aktok’s Emissaries|Immortal|0.25
Crown of Curious Coldspell|Immortal|0.7
White Sentry|Rare|0.8
Iceflight Edifice|Immortal|0.6
Garb of the Darkbrew Enforcer|Immortal|1.1
Phantom Concord|Immortal|0.65
Rollermawster|Immortal|0.5
Inscribed Rollermawster|Immortal|0.65
Ancient Dragon King|Immortal|23
Mecha Boots of Travel Mk III|Immortal|0.6
Inscribed Mecha Boots of Travel Mk III|Immortal|0.8
Pachyderm Powderwagon Elephant|Immortal|1.2
Kindred of the Iron Dragon|Immortal|0.5
Inscribed Kindred of the Iron Dragon|Immortal|0.65
Mantle of Grim Facade|Immortal|0.65
Dragonclaw Hook|Immortal|450
Timebreaker|Mythical|7
Genuine Weather Rain|Mythical|0.5
Genuine Weather Snow|Mythical|0.45
Genuine Weather Moonbeam|Mythical|0.5
Genuine Weather Harvest|Mythical|0.45
Genuine Weather Spring|Mythical|0.4
Genuine Weather Pestilence|Mythical|0.5
Genuine Weather Aurora|Mythical|0.8
Genuine Weather Ash|Mythical|0.45
Genuine Weather Sirocco|Mythical|0.45
Artificer's Hammer|Rare|0.2
Artificer's Chisel|Rare|0.15
Master Artificer's Hammer|Rare|0.9
Compact of the Guardian Construct Style Unlock|Rare|0.3
Lucid Torment Style Unlock|Rare|0.3
Genuine Hwytty & Shyzzyrd|Mythical|1.1
Huntling|Rare|0.8
Golden Huntling|Immortal|25
Seekling|Rare|0.7
Golden Seekling|Immortal|22
Venoling|Rare|0.8
Golden Venoling|Immortal|24
Devourling|Rare|0.7
Golden Devourling|Immortal|21
Krobeling|Rare|0.9
Golden Krobeling|Immortal|26
Doomling|Rare|0.9
Golden Doomling|Immortal|28
Flopjaw the Boxhound|Rare|0.6
Golden Flopjaw the Boxhound|Immortal|14
Wyvern Hatchling|Rare|0.5
Golden Wyvern Hatchling|Immortal|12
Immortal Treasure I 2016|Immortal|2.5
Immortal Treasure II 2016|Immortal|2.2
Immortal Treasure III 2016|Immortal|2.6
Immortal Treasure I 2017|Immortal|2.1
Immortal Treasure II 2017|Immortal|2
Immortal Treasure III 2017|Immortal|2.4
Immortal Treasure I 2018|Immortal|1.9
Immortal Treasure II 2018|Immortal|1.8
Immortal Treasure III 2018|Immortal|2.2
Immortal Treasure I 2019|Immortal|1.7
Immortal Treasure II 2019|Immortal|1.6
Immortal Treasure III 2019|Immortal|2
The International 2018 Collector's Cache|Immortal|3.5
The International 2019 Collector's Cache|Immortal|3
The International 2020 Collector's Cache|Immortal|2.6
The International 2020 Collector's Cache II|Immortal|2.4
The International 2016 Collector's Cache|Immortal|4.5
The International 2017 Collector's Cache|Immortal|4
Immortal Treasure I 2020|Immortal|1.5
Immortal Treasure II 2020|Immortal|1.4
Immortal Treasure III 2020|Immortal|1.8
Royal Dagger of the Tahlin Watch - Off-Hand|Immortal|0.6
Inscribed Royal Dagger of the Tahlin Watch - Off-Hand|Immortal|0.8
Bite of the Slithereen Knight|Immortal|0.9
Auspicious Bite of the Slithereen Knight|Immortal|1.1
Mighty Boar|Rare|0.9
Drodo the Druffin|Rare|0.7
Shagbark|Rare|0.6
Faceless Rex|Rare|0.8
Tory the Sky Guardian|Rare|0.7
Porcine Princess Penelope|Rare|0.6
Coco the Courageous|Rare|0.8
Nimble Ben|Rare|0.5
Lockjaw the Boxhound|Rare|0.6
Butch|Rare|0.5
Cluckles the Brave|Rare|0.7
Baekho|Mythical|1.4
Arnabus the Fairy Rabbit|Mythical|1.2
Snowl|Rare|0.6
Hermid|Rare|0.5
Mok|Rare|0.6
Tinkbot|Rare|0.7
Speed Demon|Mythical|1.1
Fearless Badger|Rare|0.9
Deathbringer|Mythical|1.3
Enduring War Dog|Rare|0.8
`;

function dota2(): Book {
  const b = new Book('dota2');
  for (const raw of DOTA_ITEMS.trim().split('\n')) {
    const [name, rarity, baseStr] = raw.split('|') as [string, string, string];
    const color = DOTA_RARITY_COLOR[rarity];
    if (!color) throw new Error(`bad dota rarity in ${raw}`);
    b.add({ market_hash_name: name, price: usd(vary(b.rng(name), Number(baseStr), 0.15)), rarity, rarity_color: color });
  }
  return b;
}

// ---------------------------------------------------------------------------------------------
// TF2 (rarity carries the item quality, colour is the quality's market name colour)
// ---------------------------------------------------------------------------------------------

const TF2_QUALITY_COLOR: Record<string, string> = {
  Unique: '7d6d00',
  Strange: 'cf6a32',
  Vintage: '476291',
  Genuine: '4d7455',
  Unusual: '8650ac',
  Haunted: '38f3ab',
  "Collector's": 'aa0000',
};

const TF2_WEAPONS = `
Scattergun|Force-A-Nature|Shortstop|Soda Popper|Baby Face's Blaster|Back Scatter|Pistol|Winger|Bat|Sandman|Holy Mackerel|Candy Cane|Boston Basher|Atomizer|Fan O'War|Wrap Assassin
Rocket Launcher|Direct Hit|Black Box|Liberty Launcher|Cow Mangler 5000|Beggar's Bazooka|Air Strike|Shotgun|Reserve Shooter|Righteous Bison|Panic Attack|Shovel|Equalizer|Escape Plan|Disciplinary Action|Market Gardener|Half-Zatoichi|Buff Banner|Battalion's Backup|Concheror
Flame Thrower|Backburner|Degreaser|Phlogistinator|Dragon's Fury|Flare Gun|Detonator|Scorch Shot|Axtinguisher|Powerjack|Homewrecker|Third Degree|Back Scratcher
Grenade Launcher|Loch-n-Load|Loose Cannon|Iron Bomber|Stickybomb Launcher|Scottish Resistance|Quickiebomb Launcher|Eyelander|Persian Persuader|Claidheamh Mòr|Scotsman's Skullcutter|Ullapool Caber
Minigun|Natascha|Brass Beast|Tomislav|Huo-Long Heater|Family Business|Fists|Killing Gloves of Boxing|Gloves of Running Urgently|Eviction Notice|Warrior's Spirit
Frontier Justice|Widowmaker|Pomson 6000|Rescue Ranger|Wrangler|Short Circuit|Wrench|Gunslinger|Southern Hospitality|Jag|Eureka Effect
Syringe Gun|Blutsauger|Crusader's Crossbow|Overdose|Medi Gun|Kritzkrieg|Quick-Fix|Vaccinator|Bonesaw|Ubersaw|Vita-Saw|Amputator|Solemn Vow
Sniper Rifle|Huntsman|Sydney Sleeper|Bazaar Bargain|Machina|Hitman's Heatmaker|Classic|SMG|Cleaner's Carbine|Bushwacka|Tribalman's Shiv|Shahanshah
Revolver|Ambassador|L'Etranger|Enforcer|Diamondback|Knife|Your Eternal Reward|Conniver's Kunai|Big Earner|Spy-cicle
Frying Pan|Conscientious Objector|Freedom Staff|Bat Outta Hell|Memory Maker|Ham Shank|Necro Smasher|Crossing Guard|Unarmed Combat
`;

const TF2_FESTIVE = new Set([
  'Rocket Launcher', 'Scattergun', 'Flame Thrower', 'Grenade Launcher', 'Stickybomb Launcher', 'Minigun',
  'Medi Gun', 'Sniper Rifle', 'Knife', 'Wrench', 'Shotgun', 'SMG', 'Revolver', 'Bat', 'Fists', 'Bonesaw',
  "Crusader's Crossbow", 'Axtinguisher', 'Ambassador', 'Black Box', 'Eyelander', 'Frontier Justice',
  'Force-A-Nature', 'Huntsman', 'Holy Mackerel', 'Buff Banner', 'Wrangler', 'Backburner', 'Flare Gun',
  'Gloves of Running Urgently', 'Ubersaw',
]);

const TF2_AUSTRALIUM = new Set([
  'Rocket Launcher', 'Scattergun', 'Flame Thrower', 'Grenade Launcher', 'Stickybomb Launcher', 'Minigun',
  'Medi Gun', 'SMG', 'Sniper Rifle', 'Knife', 'Wrench', 'Blutsauger', 'Axtinguisher', 'Frontier Justice',
  'Black Box', 'Eyelander', 'Force-A-Nature', 'Tomislav', 'Ambassador',
]);

const TF2_VINTAGE = [
  'Direct Hit', 'Natascha', 'Kritzkrieg', 'Backburner', 'Axtinguisher', 'Flare Gun', 'Force-A-Nature',
  'Sandman', 'Ubersaw', 'Blutsauger', 'Huntsman', 'Equalizer', 'Ambassador', 'Eyelander',
  'Scottish Resistance', 'Frontier Justice', 'Gunslinger', 'Wrangler', 'Buff Banner', 'Killing Gloves of Boxing',
];

const TF2_HATS = `
Team Captain|Killer Exclusive|Anger|Brigade Helm|Towering Pillar of Hats|Tyrant's Helm|Stout Shako|Hound Dog|Modest Pile of Hat|Noble Amassment of Hats
Director's Vision|Fancy Fedora|Pyromancer's Mask|Sight for Sore Eyes|Federal Casemaker|Bounty Hat|Spiky Viking|Bombing Run|Law|Connoisseur's Cap
Troublemaker's Tossle Cap|Ol' Snaggletooth|Napper's Respite|Dead Cone|Boxcar Bomber|Respectless Rubber Glove|Tough Guy's Toque|Hot Dogger|Prussian Pickelhaube|Tam O' Shanter
Professor's Peculiarity|Stylish DeGroot|Defiant Spartan|Otolaryngologist's Mirror|Surgeon's Stahlhelm|Vintage Merryweather|Frenchman's Beret|Backbiter's Billycock|Big Chief|Engineer's Cap
Texas Ten Gallon|Mining Light|Officer's Ushanka|Pugilist's Protector|Hard Counter|Tungsten Toque|Pyro's Beanie|Attendant|Soldier's Stash|Sergeant's Drill Hat
Summer Hat|Hat With No Name|Vintage Tyrolean|Merryweather|Bloke's Bucket Hat|Crone's Dome|Hetman's Headpiece|Killer's Kabuto|Gentleman's Gatsby|Brown Bomber
Ye Olde Baker Boy|Bonk Helm|Whoopee Cap|Flipped Trilby|Detective Noir|Private Eye|Familiar Fez|Hat of Cards|Well-Rounded Rifleman|Doublecross-Comm
Stainless Pot|Lumbricus Lid|Scotch Bonnet|Glengarry Bonnet
`;

const TF2_UNUSUAL_ANCHORS: Record<string, number> = {
  'Team Captain': 140, 'Killer Exclusive': 90, Anger: 110, 'Brigade Helm': 80, 'Towering Pillar of Hats': 160,
  "Tyrant's Helm": 85, 'Stout Shako': 75, 'Hound Dog': 95, 'Modest Pile of Hat': 70, 'Noble Amassment of Hats': 65,
  'Hat With No Name': 70, 'Vintage Tyrolean': 45, Merryweather: 40, 'Bounty Hat': 60, "Pyromancer's Mask": 120,
};

const TF2_GENUINE = [
  'Sun-on-a-Stick', 'Sharpened Volcano Fragment', 'Lollichop', 'Quackenbirdt', 'AWPer Hand',
  "Nessie's Nine Iron", 'Frying Pan', 'Deflector', 'Fortified Compound', 'Apoco-Fists',
];

const TF2_PAINTS = [
  'A Color Similar to Slate', 'An Extraordinary Abundance of Tinge', 'Australium Gold', 'Color No. 216-190-216',
  'Dark Salmon Injustice', 'Drably Olive', 'Indubitably Green', 'Mann Co. Orange', 'Muskelmannbraun',
  "Noble Hatter's Violet", 'Peculiarly Drab Tincture', 'Pink as Hell', 'Radigan Conagher Brown',
  'The Bitter Taste of Defeat and Lime', "The Color of a Gentlemann's Business Pants", 'Ye Olde Rustic Colour',
  "Zepheniah's Greed", 'A Deep Commitment to Purple', 'A Distinctive Lack of Hue', "A Mann's Mint",
  'After Eight', 'Aged Moustache Grey', 'An Air of Debonair', 'Balaclavas Are Forever', 'Cream Spirit',
  "Operator's Overalls", 'Team Spirit', 'The Value of Teamwork', 'Waterlogged Lab Coat',
];

const TF2_STRANGE_PARTS = [
  'Headshot Kills', 'Buildings Destroyed', 'Critical Kills', 'Damage Dealt', 'Domination Kills',
  'Robots Destroyed', 'Kills While Explosive-Jumping', 'Airborne Enemies Killed', 'Gib Kills', 'Medics Killed',
  'Scouts Killed', 'Snipers Killed', 'Heavies Killed', 'Demomen Killed', 'Pyros Killed', 'Spies Killed',
  'Engineers Killed', 'Soldiers Killed', 'Full Health Kills', 'Player Hits', 'Tanks Destroyed',
  'Kills Under A Full Moon', 'Revenge Kills', 'Allied Healing Done',
];

const TF2_TOOLS: Array<[string, number]> = [
  ['Mann Co. Supply Crate Key', 2.45], ['Tour of Duty Ticket', 0.95], ['Squad Surplus Voucher', 0.45],
  ['Backpack Expander', 1.6], ['Name Tag', 0.55], ['Description Tag', 0.3], ['Strange Bacon Grease', 7.5],
  ['Gift Wrap', 0.12], ['Secret Saxton', 0.4], ['Dueling Mini-Game', 0.15], ['Festivizer', 2.4],
  ['Mann Co. Stockpile Crate', 0.05], ['Taunt: The Schadenfreude', 2.2], ['Taunt: Rock, Paper, Scissors', 1.4],
  ['Taunt: High Five!', 2.1], ['Taunt: Conga', 3.5], ['Taunt: Kazotsky Kick', 1.9], ['Taunt: Square Dance', 2.0],
  ['Taunt: Mannrobics', 0.9], ['Taunt: Victory Lap', 1.1], ['Taunt: The Carlton', 1.3], ['Taunt: Spin-to-Win', 0.8],
];

function tf2(): Book {
  const b = new Book('tf2');
  const q = (quality: string) => ({ rarity: quality, rarity_color: TF2_QUALITY_COLOR[quality] });
  const add = (name: string, price: number, quality: string) =>
    b.add({ market_hash_name: name, price: usd(price), ...q(quality) });

  for (const [name, base] of TF2_TOOLS) add(name, vary(b.rng(name), base, name.endsWith('Key') ? 0.02 : 0.15), 'Unique');

  const weapons = TF2_WEAPONS.trim().split('\n').flatMap((l) => l.split('|')).map((s) => s.trim()).filter(Boolean);
  for (const w of weapons) {
    let name = `Strange ${w}`;
    add(name, logUniform(b.rng(name), 0.08, 3.5), 'Strange');
    name = `Killstreak ${w}`;
    add(name, logUniform(b.rng(name), 0.4, 2.2), 'Unique');
    name = `Strange Specialized Killstreak ${w}`;
    add(name, logUniform(b.rng(name), 1.5, 8), 'Strange');
    name = `Strange Professional Killstreak ${w}`;
    add(name, logUniform(b.rng(name), 6, 35), 'Strange');
    if (TF2_FESTIVE.has(w)) {
      name = `Strange Festive ${w}`;
      add(name, logUniform(b.rng(name), 0.9, 7), 'Strange');
    }
    if (TF2_AUSTRALIUM.has(w)) {
      name = `Strange Australium ${w}`;
      add(name, logUniform(b.rng(name), 28, 140), 'Strange');
      name = `Strange Professional Killstreak Australium ${w}`;
      add(name, logUniform(b.rng(name), 60, 260), 'Strange');
    }
  }
  for (const w of TF2_VINTAGE) {
    const name = `Vintage ${w}`;
    add(name, logUniform(b.rng(name), 0.4, 4.5), 'Vintage');
  }

  const hats = TF2_HATS.trim().split('\n').flatMap((l) => l.split('|')).map((s) => s.trim()).filter(Boolean);
  for (const h of hats) {
    const unusual = `Unusual ${h}`;
    const anchor = TF2_UNUSUAL_ANCHORS[h];
    add(unusual, anchor !== undefined ? vary(b.rng(unusual), anchor, 0.2) : logUniform(b.rng(unusual), 25, 220), 'Unusual');
    add(h, logUniform(b.rng(h), 0.05, 6), 'Unique');
    const strange = `Strange ${h}`;
    if (fnv1a(strange) % 3 === 0) add(strange, logUniform(b.rng(strange), 1.5, 18), 'Strange');
  }
  for (const g of TF2_GENUINE) {
    const name = `Genuine ${g}`;
    add(name, logUniform(b.rng(name), 0.5, 12), 'Genuine');
  }
  add('Earbuds', vary(b.rng('Earbuds'), 48, 0.1), 'Unique');
  add("Max's Severed Head", vary(b.rng("Max's Severed Head"), 14, 0.1), 'Unique');
  add("Bill's Hat", vary(b.rng("Bill's Hat"), 9, 0.1), 'Unique');
  for (const p of TF2_PAINTS) add(p, logUniform(b.rng(p), 0.9, 40), 'Unique');
  for (const part of TF2_STRANGE_PARTS) {
    const name = `Strange Part: ${part}`;
    add(name, logUniform(b.rng(name), 0.6, 45), 'Strange');
  }
  return b;
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(here, '..', 'data', 'pricebook');
mkdirSync(outDir, { recursive: true });

for (const book of [csgo(), rust(), dota2(), tf2()]) {
  const text = book.serialize();
  const file = join(outDir, `${book.game}.json`);
  writeFileSync(file, text);
  console.log(`${book.game}: ${book.entries.length} entries, ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB -> ${file}`);
}
