// The pure translation tables of the steam adapter, over the platform's own JSON shapes
// (offers parsed by steam-tradeoffer-manager itself, GetTradeHistory, community inventories).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  OfferState, classifySendError, offerChangeOf, offerMessage, platformItemsOf, recordOfMessage, reversedTradeIds, userErrorOfDetails, userErrorOfMessage,
} from '../../src/platform/steam/steam-mapping.js';

const require = createRequire(import.meta.url);
const Helpers = require('steam-tradeoffer-manager/lib/helpers.js');
const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('offer state → port change', () => {
  const offers = fixture('get-trade-offers.json').response.trade_offers_sent.map((raw: unknown) => Helpers.createOfferFromData({}, Helpers.sanitizeRawOffer(raw)));
  const byId = Object.fromEntries(offers.map((o: any) => [o.id, o]));

  it('reads the library offers: InEscrow carries escrowEnds, the record comes from the message', () => {
    const escrow = byId['7000000002'];
    expect(escrow.state).toBe(OfferState.InEscrow);
    expect(offerChangeOf('deposit', OfferState.Active, escrow.state, escrow.escrowEnds)).toEqual({ change: 'accepted', hold: true, holdEndsAt: new Date(1764504900 * 1000) });
    expect(recordOfMessage(escrow.message)).toEqual({ kind: 'deposit', recordId: 2 });
    expect(offerChangeOf('deposit', OfferState.Active, byId['7000000001'].state, null)).toBeNull();
    expect(offerChangeOf('purchase', OfferState.Active, byId['7000000003'].state, null)).toEqual({ change: 'accepted' });
    expect(offerChangeOf('deposit', OfferState.InEscrow, byId['7000000004'].state, null)).toEqual({ change: 'reverted', by: 'user' });
  });

  it.each([
    [null, OfferState.Active, null],
    [null, OfferState.CreatedNeedsConfirmation, null],
    [OfferState.CreatedNeedsConfirmation, OfferState.Active, null],
    [OfferState.Active, OfferState.Active, null],
    [OfferState.Active, OfferState.Accepted, { change: 'accepted' }],
    [null, OfferState.Accepted, { change: 'accepted' }],
    [OfferState.Active, OfferState.InEscrow, { change: 'accepted', hold: true }],
    [OfferState.InEscrow, OfferState.Accepted, { change: 'hold_ended' }],
    [OfferState.Active, OfferState.Declined, { change: 'declined' }],
    [OfferState.Active, OfferState.Countered, { change: 'declined' }],
    [OfferState.Active, OfferState.Expired, { change: 'expired' }],
    [OfferState.Active, OfferState.Canceled, { change: 'canceled' }],
    [OfferState.CreatedNeedsConfirmation, OfferState.CanceledBySecondFactor, { change: 'canceled' }],
    [OfferState.InEscrow, OfferState.Canceled, { change: 'reverted', by: 'user' }],
    [OfferState.InEscrow, OfferState.CanceledBySecondFactor, { change: 'reverted', by: 'user' }],
    [OfferState.Active, OfferState.InvalidItems, { change: 'canceled' }],
    [OfferState.Active, OfferState.Invalid, { change: 'canceled' }],
  ])('deposit %s → %s', (from, to, expected) => {
    expect(offerChangeOf('deposit', from, to, null)).toEqual(expected);
  });

  it('an escrow rollback of a purchase was ours to make (gateway_reverted)', () => {
    expect(offerChangeOf('purchase', OfferState.InEscrow, OfferState.Canceled, null)).toEqual({ change: 'reverted', by: 'gateway' });
  });

  it('messages round-trip and foreign messages are not ours', () => {
    expect(recordOfMessage(offerMessage('purchase', 9007199254))).toEqual({ kind: 'purchase', recordId: 9007199254 });
    expect(recordOfMessage('hello [gw:deposit:1]')).toBeNull();
    expect(recordOfMessage(undefined)).toBeNull();
  });
});

describe('trade history → reversals', () => {
  it('status 12, escrow rollback 11, and the original named by rollback_trade', () => {
    const trades = fixture('get-trade-history.json').response.trades;
    expect(reversedTradeIds(trades).sort()).toEqual(['4000000000000000003', '4000000000000000005']);
    expect(reversedTradeIds([{ tradeid: '1', time_init: 1, status: 3 }])).toEqual([]);
  });
});

describe('trade link checks', () => {
  it.each([
    [{ escrowDays: 0, probation: false, contexts: { 730: {} } }, null],
    [{ escrowDays: 7, contexts: { 730: {} } }, 'hold'],
    [{ escrowDays: 0, contexts: { 570: {} } }, 'permissions'],
    [{ escrowDays: 15, contexts: {} }, 'hold_and_permissions'],
    [{ escrowDays: 0, probation: true, contexts: { 730: {} } }, 'trade_banned'],
  ])('details %j → %s', (them, code) => {
    expect(userErrorOfDetails('csgo', them)).toBe(code);
  });

  it.each([
    ['This Trade URL is no longer valid for sending a trade offer to Bob.', 'trade_link_revoked'],
    ['This profile is private.', 'profile_private'],
    ['You cannot trade with Bob because they have a trade ban.', 'trade_banned'],
    ['The specified profile could not be found.', 'trade_link_invalid'],
    ['HTTP error 500', null],
  ])('message %s → %s', (msg, code) => {
    expect(userErrorOfMessage(msg)).toBe(code);
  });
});

describe('send errors', () => {
  // Built as steam-tradeoffer-manager builds them from the platform's strError.
  const fromStrError = (strError: string) => {
    let e: any;
    Helpers.makeAnError(null, (err: any) => (e = err), { strError });
    return e;
  };
  it.each([
    ['There was an error sending your trade offer.  Please try again later. (16)', { kind: 'uncertain' }],
    ['There was an error sending your trade offer.  Please try again later. (26)', { kind: 'assets_unavailable' }],
    ['This Trade URL is no longer valid for sending a trade offer to Bob. (26)', { kind: 'user', code: 'trade_link_revoked' }],
    ['There was an error sending your trade offer.  Please try again later. (15)', { kind: 'user', code: 'trade_link_invalid' }],
    ['There was an error sending your trade offer.  Please try again later. (20)', { kind: 'unavailable' }],
    ['You cannot trade with Bob because they have a trade ban.', { kind: 'user', code: 'trade_banned' }],
    ['You have logged in from a new device. In order to protect the items in your inventory, you will be unable to trade from this device for 7 days.', { kind: 'bot' }],
    ['You have sent too many trade offers, or have too many outstanding trade offers with Bob. Please cancel some before sending more.', { kind: 'unavailable' }],
    ['Bob is not available to trade. More information will be shown to Bob if they invite you to trade.', { kind: 'user', code: 'trade_banned' }],
  ])('%s', (strError, expected) => {
    expect(classifySendError(fromStrError(strError))).toMatchObject(expected);
  });
  it('429 backs off; a lost answer is uncertain; a signed-out session is unavailable', () => {
    expect(classifySendError({ message: 'HTTP error 429', code: 429 })).toEqual({ kind: 'rate_limited' });
    expect(classifySendError({ message: 'socket hang up' })).toEqual({ kind: 'uncertain' });
    expect(classifySendError({ message: 'Not Logged In' })).toEqual({ kind: 'unavailable' });
  });
});

describe('inventory items', () => {
  it('keeps tradable items with their class, instance, Doppler phase, float and pattern', () => {
    const page = fixture('inventory-page.json');
    // As steamcommunity joins assets with descriptions.
    const props = Object.fromEntries(page.asset_properties.map((p: any) => [p.assetid, p.asset_properties]));
    const items = page.assets.map((a: any) => ({ ...a, ...page.descriptions.find((d: any) => d.classid === a.classid), tradable: page.descriptions.find((d: any) => d.classid === a.classid).tradable === 1, ...(props[a.assetid] ? { asset_properties: props[a.assetid] } : {}) }));
    expect(platformItemsOf(items)).toEqual([
      { assetId: '30000000011', marketHashName: 'AK-47 | Redline (Field-Tested)', classId: '1001', instanceId: '0', float: 0.2195838242769241, paintSeed: 661 },
      { assetId: '30000000013', marketHashName: '★ Karambit | Doppler (Factory New)', classId: '1003', instanceId: '0', phase: 'Phase 2' },
    ]);
  });
});
