// Wire shapes of the webhooks: the two bodies a merchant receives (spec 6.1, 6.2) and the operator's
// delivery log. The bodies are shown in the OpenAPI document's `webhooks` section.
import { Type } from '@sinclair/typebox';
import { IsoDate, Nullable, UsdAmount } from '../../http/schemas.js';
import { DEPOSIT_MACHINE, DEPOSIT_STATUSES } from '../../domain/deposit-state.js';
import { PURCHASE_MACHINE, PURCHASE_STATUSES } from '../../domain/purchase-state.js';
import { PURCHASE_FAIL_REASONS } from '../../domain/purchase-state.js';

export const WEBHOOK_STATES = ['pending', 'delivered', 'exhausted'] as const;
/** The statuses whose entry sends a webhook (spec 6.1, 6.2), from the state machines. */
export const WEBHOOK_DEPOSIT_STATUSES = DEPOSIT_STATUSES.filter((s) => DEPOSIT_MACHINE.onEnter[s].webhook);
export const WEBHOOK_PURCHASE_STATUSES = PURCHASE_STATUSES.filter((s) => PURCHASE_MACHINE.onEnter[s].webhook);

const sign = Type.String({ description: 'base64(sha256(String(id) + webhook secret)), id = trade_id or purchase_id' });

export const DepositWebhookBody = Type.Object(
  {
    sign,
    status: Type.String({ enum: [...WEBHOOK_DEPOSIT_STATUSES] }),
    trade_id: Type.Integer({ description: 'the deposit id' }),
    trade_date: IsoDate('when the deposit was created'),
    merchant_tx_id: Type.String(),
    platform_id: Type.String({ description: "the user's 64-bit platform ID" }),
    offer_id: Type.String({ description: 'trade offer ID (empty when no offer was sent)' }),
    amount: UsdAmount(),
    amount_currency: Type.String({ enum: ['usd'] }),
    hold_end_date: Type.Optional(Nullable(IsoDate('present when status is hold'))),
    fail_reason: Type.Optional(Nullable(Type.String({ description: 'present when status is failed or canceled' }))),
  },
  { title: 'DepositWebhook' },
);

export const PurchaseWebhookBody = Type.Object(
  {
    sign,
    status: Type.String({ enum: WEBHOOK_PURCHASE_STATUSES }),
    purchase_id: Type.Integer(),
    trade_date: IsoDate('when the status changed'),
    merchant_tx_id: Type.Optional(Type.String({ description: 'absent when the purchase was created without one' })),
    asset_id: Type.Optional(Type.String({ description: 'the catalogue listing ID bought' })),
    offer_id: Type.Optional(Type.String({ description: 'trade offer ID, once sent' })),
    amount: UsdAmount(),
    amount_currency: Type.String({ enum: ['usd'] }),
    fail_reason: Type.Optional(Type.String({ enum: PURCHASE_FAIL_REASONS, description: 'present only when status is failed' })),
  },
  { title: 'PurchaseWebhook' },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.Integer(),
    webhook_id: Type.String({ description: 'the `webhook-id` header, stable across retries' }),
    merchant_id: Type.Integer(),
    kind: Type.String({ enum: ['deposit', 'purchase', 'test'] }),
    record_id: Type.Integer({ description: 'deposit or purchase id' }),
    status: Type.String({ description: 'the record status the event reports' }),
    state: Type.String({ enum: [...WEBHOOK_STATES] }),
    target_url: Type.String(),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(IsoDate()),
    last_attempt_at: Nullable(IsoDate()),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    delivered_at: Nullable(IsoDate()),
    created_at: IsoDate(),
    payload: Type.Object({}, { additionalProperties: true, description: 'the body sent, without sign' }),
    attempts: Type.Array(
      Type.Object({
        attempt: Type.Integer(),
        attempted_at: Nullable(IsoDate()),
        target_url: Type.String(),
        status_code: Nullable(Type.Integer()),
        latency_ms: Nullable(Type.Integer()),
        error: Nullable(Type.String()),
        response_excerpt: Nullable(Type.String()),
      }),
    ),
  },
  { title: 'WebhookDelivery' },
);
