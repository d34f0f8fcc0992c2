// Wire shapes of the events API (GET /api/v1/merchant/events, beyond the spec): the merchant's own
// webhook events, whatever became of their delivery.
import { Type } from '@sinclair/typebox';
import { IsoDate, Nullable } from '../../http/schemas.js';
import { WEBHOOK_DEPOSIT_STATUSES, WEBHOOK_PURCHASE_STATUSES, WEBHOOK_STATES } from '../webhooks/webhook-schemas.js';

/** Event types: `<record kind>.<status>` for the status changes, `test` for dashboard test events. */
export const EVENT_TYPES = [
  ...WEBHOOK_DEPOSIT_STATUSES.map((s) => `deposit.${s}`),
  ...WEBHOOK_PURCHASE_STATUSES.map((s) => `purchase.${s}`),
  'test',
];
export const EVENT_KINDS = ['deposit', 'purchase', 'test'] as const;

/** An event id as the `webhook-id` header shows it (`evt_123`), or its number alone. */
const EventId = Type.String({ pattern: '^(evt_)?[1-9][0-9]{0,15}$', maxLength: 20, description: 'evt_<n> (the webhook-id header) or n' });
export const EventIdParam = Type.Object({ id: EventId }, { title: 'EventParams' });

export const ListEventsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional({ ...EventId, description: 'next_cursor of the previous page: the events older than it' }),
    type: Type.Optional(Type.String({ enum: [...new Set([...EVENT_TYPES, ...EVENT_KINDS])], description: 'an event type (deposit.completed) or all of a kind (deposit, purchase, test)' })),
    deposit_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991, description: 'the events of this deposit' })),
    purchase_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991, description: 'the events of this purchase' })),
    created_from: Type.Optional(IsoDate('events created at or after this time')),
    created_to: Type.Optional(IsoDate('events created before this time')),
  },
  { title: 'ListEventsQuery' },
);

const Delivery = Type.Object(
  {
    state: Type.String({ enum: [...WEBHOOK_STATES], description: 'pending (being sent or waiting for a retry), delivered (a 2xx came back), exhausted (no more attempts)' }),
    target_url: Type.String(),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(IsoDate('when pending: the next attempt')),
    last_attempt_at: Nullable(IsoDate()),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    delivered_at: Nullable(IsoDate()),
  },
  { title: 'EventDelivery' },
);

const Attempt = Type.Object(
  {
    attempt: Type.Integer(),
    attempted_at: IsoDate(),
    target_url: Type.String(),
    status_code: Nullable(Type.Integer({ description: 'null: no HTTP answer (see error)' })),
    latency_ms: Type.Integer(),
    error: Nullable(Type.String()),
    response_excerpt: Nullable(Type.String({ description: 'the first KiB of your answer' })),
  },
  { title: 'EventAttempt' },
);

const eventFields = {
  id: Type.String({ description: 'evt_<n>: the webhook-id header of its deliveries' }),
  type: Type.String({ enum: EVENT_TYPES }),
  record_kind: Type.String({ enum: [...EVENT_KINDS] }),
  record_id: Type.Integer({ description: 'the deposit (trade_id) or purchase id; 0 for test events' }),
  merchant_tx_id: Nullable(Type.String()),
  created_at: IsoDate(),
  data: Type.Object({}, { additionalProperties: true, description: 'the webhook body, without sign' }),
  delivery: Delivery,
};

export const EventSchema = Type.Object(eventFields, { title: 'Event' });
export const EventWithAttemptsSchema = Type.Object({ ...eventFields, attempts: Type.Array(Attempt) }, { title: 'EventWithAttempts' });
export const EventListSchema = Type.Object(
  {
    events: Type.Array(EventSchema),
    next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next (older) page; null: no more' })),
  },
  { title: 'EventList' },
);
