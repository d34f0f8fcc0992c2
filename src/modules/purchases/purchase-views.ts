// Wire shapes of a purchase (spec 2.5) and of its webhook (6.2 without sign). Optional fields are
// omitted, never null; money via millsToUsd, timestamps via isoUtc.
import { isoUtc } from '../../domain/clock.js';
import { millsToUsd } from '../../domain/money.js';
import { PURCHASE_MACHINE, type PurchaseStatus } from '../../domain/purchase-state.js';
import { absoluteUrl } from '../catalogue/catalogue-views.js';
import type { PurchaseRow, PurchaseWireRow } from './purchase-repo.js';

export interface PurchaseWire {
  id: number;
  merchant_tx_id?: string;
  status: PurchaseStatus;
  fail_reason?: string;
  platform_id: string;
  platform_name?: string;
  platform_avatar_url?: string;
  amount: number;
  trade_offer_id?: string;
  hold_end_date?: string;
  date: string;
  item?: { id: string; name: string; price: number; image_url: string };
}

export function purchaseWire(p: PurchaseWireRow, publicUrl: string): PurchaseWire {
  const out: PurchaseWire = {
    id: p.id,
    status: p.status,
    platform_id: p.platform_id,
    amount: millsToUsd(p.amount),
    date: isoUtc(p.created_at),
  };
  if (p.merchant_tx_id !== null) out.merchant_tx_id = p.merchant_tx_id;
  if (p.fail_reason && PURCHASE_MACHINE.onEnter[p.status].keepsFailReason) out.fail_reason = p.fail_reason;
  if (p.platform_name) out.platform_name = p.platform_name;
  if (p.platform_avatar_url) out.platform_avatar_url = p.platform_avatar_url;
  if (p.trade_offer_id) out.trade_offer_id = p.trade_offer_id;
  if (p.hold_end_date) out.hold_end_date = isoUtc(p.hold_end_date);
  if (p.listing_id && p.item_name !== null) {
    out.item = {
      id: p.listing_id,
      name: p.item_name,
      price: millsToUsd(p.item_price ?? p.amount),
      image_url: absoluteUrl(publicUrl, p.item_image_url),
    };
  }
  return out;
}

/** Purchase webhook body (6.2) without `sign`: fail_reason only when failed. */
export function purchaseWebhookPayload(p: PurchaseRow): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: p.status,
    purchase_id: p.id,
    trade_date: isoUtc(p.updated_at),
  };
  if (p.merchant_tx_id !== null) body.merchant_tx_id = p.merchant_tx_id;
  if (p.listing_id) body.asset_id = p.listing_id;
  if (p.trade_offer_id) body.offer_id = p.trade_offer_id;
  body.amount = millsToUsd(p.amount);
  body.amount_currency = 'usd';
  if (p.status === 'failed' && p.fail_reason) body.fail_reason = p.fail_reason;
  return body;
}
