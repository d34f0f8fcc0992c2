// Reconciliation against the platform, the rules: every item that moved is
// matched by a record in the right status, every credit by an item received and not reversed,
// every listing for sale by an item a bot holds. Pure: the service reads the platform (the bots'
// trades and inventories, through the port) and the records, and hands both here.

export type DiscrepancyKind =
  | 'trade_without_record'
  | 'deposit_trade_not_credited'
  | 'purchase_trade_not_recorded'
  | 'reversed_trade_still_credited'
  | 'reversed_purchase_not_recorded'
  | 'credit_without_trade'
  | 'purchase_without_trade'
  | 'listed_item_missing';

/** What the operator should do about each kind (shown with every discrepancy). */
export const ACTIONS: Record<DiscrepancyKind, string> = {
  trade_without_record:
    'A trade of our bot that no deposit or purchase made: someone used the bot account outside the gateway. Check the account (sessions, API keys), and return or keep the items deliberately.',
  deposit_trade_not_credited:
    'The user\'s items reached our bot but the deposit is not credited. Credit the merchant (a top-up referencing the deposit) or return the items to the user.',
  purchase_trade_not_recorded:
    'Our item went to the buyer but the purchase is not completed (it may have been refunded). Charge the merchant (a withdrawal referencing the purchase) or recover the item.',
  reversed_trade_still_credited:
    'The deposit trade was reversed on the platform (the items went back to the user) but the merchant is still credited. Debit the merchant (a withdrawal referencing the deposit) and delist what the deposit listed.',
  reversed_purchase_not_recorded:
    'The purchase trade was reversed on the platform (the item came back to our bot) but the purchase stands as delivered. Refund the merchant and list the item again (`gateway bot sync`).',
  credit_without_trade:
    'The deposit is credited but the platform shows no trade for it: the merchant holds money for items we never received. Check the offer on the platform; debit the merchant if no trade happened.',
  purchase_without_trade:
    'The purchase is completed but the platform shows no trade for it: the buyer may not have the item. Check the offer on the platform; refund the merchant if nothing was given.',
  listed_item_missing:
    'A listing for sale whose item no bot holds: a purchase of it would fail. Delist it (`gateway bot sync` delists bot listings) and find where the item went.',
};

export interface Discrepancy {
  kind: DiscrepancyKind;
  bot_id: number | null;
  record_kind: 'deposit' | 'purchase' | null;
  record_id: number | null;
  merchant_id: number | null;
  trade_id: string | null;
  listing_id: string | null;
  asset_id: string | null;
  detail: string;
  action: string;
}

export interface TradeFact {
  botId: number;
  tradeId: string;
  record?: { kind: 'deposit' | 'purchase'; recordId: number };
  at: Date;
  status: 'complete' | 'in_escrow' | 'reversed' | 'failed';
}

export interface RecordFact {
  kind: 'deposit' | 'purchase';
  id: number;
  merchant_id: number;
  status: string;
  bot_id: number | null;
  created_at: Date;
  /** A reversal seen after completion is in the ledger already (deposit_late_revert / purchase_late_revert). */
  reversalRecorded?: boolean;
}

export interface ListingFact {
  id: string;
  /** The bot that must hold it (bot listings, deposits); null: any bot (imports). */
  bot_id: number | null;
  game: string;
  /** Held as this asset id (bot and import listings), or as an item that arrived in this deposit under this asset id. */
  asset_id: string | null;
  deposit?: { id: number; assetId: string };
}

export interface HeldFact {
  botId: number;
  game: string;
  assetId: string;
  depositId?: number;
  depositAssetId?: string;
}

export interface ReconcileInput {
  since: Date;
  trades: readonly TradeFact[];
  /** The records the trades name, and the records created since `since` in a status that needs a trade. */
  records: ReadonlyMap<string, RecordFact>;
  /** Bots whose trade history was read. */
  tradesRead: ReadonlySet<number>;
  listings: readonly ListingFact[];
  held: readonly HeldFact[];
  /** `${botId}:${game}` of the inventories read. */
  inventoriesRead: ReadonlySet<string>;
  /** Every inventory of every bot was read (an import listing may be held by any bot). */
  allInventoriesRead: boolean;
}

export const recordKey = (kind: 'deposit' | 'purchase', id: number) => `${kind}:${id}`;

/** A deposit the merchant is credited for; a purchase the buyer is told was delivered. */
const CREDITED = new Set(['hold', 'completed']);

export function findDiscrepancies(input: ReconcileInput): Discrepancy[] {
  const out: Discrepancy[] = [];
  const add = (kind: DiscrepancyKind, d: Partial<Discrepancy> & { detail: string }) =>
    out.push({ kind, bot_id: null, record_kind: null, record_id: null, merchant_id: null, trade_id: null, listing_id: null, asset_id: null, ...d, action: ACTIONS[kind] });
  const traded = new Set<string>();

  for (const t of input.trades) {
    if (t.status === 'failed') continue;
    const rec = t.record && input.records.get(recordKey(t.record.kind, t.record.recordId));
    const base = { bot_id: t.botId, trade_id: t.tradeId };
    if (!t.record || !rec) {
      add('trade_without_record', { ...base, ...(t.record ? { record_kind: t.record.kind, record_id: t.record.recordId } : {}), detail: `trade ${t.tradeId} (${t.status}, ${t.at.toISOString()}) matches no ${t.record ? `${t.record.kind} ${t.record.recordId}` : 'record'}` });
      continue;
    }
    const ref = { ...base, record_kind: rec.kind, record_id: rec.id, merchant_id: rec.merchant_id };
    if (t.status === 'reversed') {
      traded.add(recordKey(rec.kind, rec.id)); // the trade happened; its reversal is the finding
      if (CREDITED.has(rec.status) && !rec.reversalRecorded) {
        add(rec.kind === 'deposit' ? 'reversed_trade_still_credited' : 'reversed_purchase_not_recorded', { ...ref, detail: `trade ${t.tradeId} was reversed; ${rec.kind} ${rec.id} is ${rec.status}` });
      }
      continue;
    }
    traded.add(recordKey(rec.kind, rec.id));
    if (!CREDITED.has(rec.status)) {
      add(rec.kind === 'deposit' ? 'deposit_trade_not_credited' : 'purchase_trade_not_recorded', { ...ref, detail: `trade ${t.tradeId} (${t.status}) moved the items; ${rec.kind} ${rec.id} is ${rec.status}` });
    }
  }

  for (const rec of input.records.values()) {
    if (!CREDITED.has(rec.status) || rec.created_at < input.since) continue;
    if (rec.bot_id === null || !input.tradesRead.has(rec.bot_id)) continue; // its bot's history was not read
    if (traded.has(recordKey(rec.kind, rec.id))) continue;
    add(rec.kind === 'deposit' ? 'credit_without_trade' : 'purchase_without_trade', {
      bot_id: rec.bot_id, record_kind: rec.kind, record_id: rec.id, merchant_id: rec.merchant_id,
      detail: `${rec.kind} ${rec.id} is ${rec.status}; bot ${rec.bot_id}'s trade history since ${input.since.toISOString()} has no trade for it`,
    });
  }

  const byAsset = new Set(input.held.map((h) => `${h.botId}:${h.game}:${h.assetId}`));
  const anyBot = new Set(input.held.map((h) => `${h.game}:${h.assetId}`));
  const byDeposit = new Set(input.held.filter((h) => h.depositId !== undefined).map((h) => `${h.depositId}:${h.depositAssetId ?? h.assetId}`));
  for (const l of input.listings) {
    let held: boolean;
    if (l.deposit) {
      if (l.bot_id === null || !input.inventoriesRead.has(`${l.bot_id}:${l.game}`)) continue;
      held = byDeposit.has(`${l.deposit.id}:${l.deposit.assetId}`);
    } else if (l.bot_id !== null) {
      if (!input.inventoriesRead.has(`${l.bot_id}:${l.game}`)) continue;
      held = byAsset.has(`${l.bot_id}:${l.game}:${l.asset_id}`);
    } else {
      if (!input.allInventoriesRead) continue;
      held = anyBot.has(`${l.game}:${l.asset_id}`);
    }
    if (!held) {
      add('listed_item_missing', {
        bot_id: l.bot_id, listing_id: l.id, asset_id: l.deposit?.assetId ?? l.asset_id,
        ...(l.deposit ? { record_kind: 'deposit' as const, record_id: l.deposit.id } : {}),
        detail: `listing ${l.id} is for sale but ${l.bot_id !== null ? `bot ${l.bot_id}` : 'no bot'} holds its item`,
      });
    }
  }
  return out;
}
