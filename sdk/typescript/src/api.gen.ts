// GENERATED from the gateway's /openapi.json by scripts/generate.ts: do not edit by hand.
/* eslint-disable */
export interface paths {
    "/api/v1/merchant/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Merchant balance: available, hold and total (USD)
         * @description Your balance in USD: `available` (spendable), `hold` (reserved by purchases in flight) and `total`. The account is identified by the key.
         *
         *     Section 4.13 of the merchant API specification.
         */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/inventory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The user's priced inventory; starts a pricing snapshot for create-deposit
         * @description The user's inventory with real-time prices, and `max_items` (the per-deposit item limit). Starts a 5-minute pricing snapshot: create-deposit takes its asset IDs and prices from it (after 5 minutes: 400 with code `inventory_reload`). Recommended: at most one call per user per 5 seconds. The trade link codes of the Errors section apply.
         *
         *     Section 4.2 of the merchant API specification.
         */
        post: operations["getInventory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/create-deposit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Creates a deposit of assets from the inventory snapshot and sends the trade offer
         * @description Creates a deposit of `asset_ids` from the inventory snapshot and sends the trade offer. Answers `status` `active` (offer sent) or `failed` (with `fail_reason`), both HTTP 200. The user's inventory is read again first: an asset no longer held or not tradable is 400 `item_not_available`, one priced for another phase 400 `price_changed`; the deposit is stored failed with that reason. `min_prices` (asset ID → minimum USD price) refuses the deposit when a price fell below its floor. `from_preview` credits preview prices (merchants with deposit-preview only). More items than `max_items`: 400 `too_many_items`. Duplicate `merchant_tx_id`: 409. Custom currency data is read later from deposit status (hold or completed).
         *
         *     Section 4.3 of the merchant API specification.
         */
        post: operations["createDeposit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/get-prices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Quotes items by market hash name; a draft trade locks the quote
         * @description Quotes items by market hash name (1–2000 names). Unless `no_deposit_intent` is true, a draft trade (status new) is created and its `id` answered: the quote is valid for 5 minutes, commit it with create-deposit-by-hash-name. When nothing can be priced, the answer has total 0, sum 0, items null and no id.
         *
         *     Section 4.4 of the merchant API specification.
         */
        post: operations["getPrices"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/create-deposit-by-hash-name": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Commits a get-prices draft with per-item price floors and sends the trade offer
         * @description Commits a get-prices draft, in order: the trade link is checked; the draft must be yours (else 404) and in status new (else 400 code `denied`); `merchant_tx_id` is stored (duplicate: 409); a quote older than 5 minutes is 400 code `inventory_reload`; an item whose current price is below its `min_price` is 400 `item_specified_price_not_found`; every asset must be in the user's inventory now, tradable and the item named (else 400 `item_not_available`; a phased item quoted by its phase, `<name> - <phase>`, else 400 `price_changed`), the trade stored failed; then the offer is sent with a 10-second timeout. Failures after that answer HTTP 200 with status `failed` (`service_unavailable` on a timeout). More items than `max_items`: 400, no trade is created.
         *
         *     Section 4.5 of the merchant API specification.
         */
        post: operations["createDepositByHashName"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/deposit-preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Side-effect-free display quote of a list of items or of the user inventory
         * @description Prices currently paid for a list of items (`items`, up to 1000; answered with id, name, price and phase only) or for the user inventory (`partner` + `token`; full item cards). No record, no reservation, no pricing snapshot; prices refresh about every 10 minutes and the deposit settles the final amount. Enabled per merchant: 403 until then.
         *
         *     Section 4.6 of the merchant API specification.
         */
        post: operations["previewDeposit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/deposit/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A deposit by id and/or merchant_tx_id
         * @description A deposit by `id` and/or `merchant_tx_id` (at least one, else 400). `success_url` / `fail_url` only when set, `hold_end_date` when hold, custom currency fields when hold or completed. 404 when no deposit of yours matches. Poll at most once a second per deposit; prefer the webhooks.
         *
         *     Section 4.7 of the merchant API specification.
         */
        get: operations["getDepositStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/sandbox/deposit/{id}/{action}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: accept, decline, expire, cancel, release or revert a deposit trade offer
         * @description accept {hold?}: hold (default: the game hold) or completed; decline: canceled canceled_by_user; expire, cancel: canceled canceled_by_gateway; release: a hold ends now (completed); revert {by: user|gateway}: reverted. 409 invalid transition when the status does not allow it.
         */
        post: operations["sandboxDepositAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/create-intent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a deposit intent (redirect flow): answers the hosted deposit page URL
         * @description Creates a deposit intent for the redirect flow and answers the hosted page `url`. If game, partner and token are omitted, the user supplies them on the hosted page. The page takes a deposit for `INTENT_TTL_SECONDS` (default one day); after that it says the link has expired (an intent already in a deposit follows that deposit). `result_url` overrides the merchant webhook URL for this deposit; `success_url` / `fail_url` are where the page sends the user. The three custom currency fields go together (`custom_currency` 1–4 characters, multiplier 0.5–2.0, rate at least 0.1). A duplicate `merchant_tx_id` is 409 `already exist error`; the trade link codes of the Errors section apply.
         *
         *     Section 4.1 of the merchant API specification.
         */
        post: operations["createIntent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/purchase/available": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Catalogue: grouped or full, whole (streamed) or one of 16 pages with ETag
         * @description The catalogue of a game: grouped by name (default) or one entry per listing (`full=true`, with `extended` fields on request). With `page` (1–16): one of 16 fixed slices keyed by listing ID; a walk over pages 1–16 never skips or repeats a listing even while the catalogue changes; a page past the last is empty; grouped answers are page 1 of 1. Each page has an ETag: `If-None-Match` with the current one answers 304 without a body. While the catalogue is rebuilt a page answers 503 with `Retry-After`. Prices are point-in-time; listings are re-priced when bought.
         *
         *     Without page the whole catalogue of the game is streamed in one response (chunked). With page (1-16): a fixed slice keyed by listing ID, ETag per page (If-None-Match answers 304), 503 with Retry-After while the catalogue is rebuilt.
         *
         *     Whole-catalogue downloads: prices and availability are point-in-time per batch of listings, not per response (each listing appears at most once); use the pages and /purchase/events to keep an exact copy. A few downloads run at once per instance: beyond that the answer is 503 with Retry-After (whole seconds). A reader that stalls is disconnected. If the download fails part-way the connection is cut before the end of the body (no final chunk): a cut-off body means retry, never a catalogue.
         *
         *     Section 4.11 of the merchant API specification.
         */
        get: operations["getCatalogue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/purchase/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live listings with the given names (full format)
         * @description Live listings with the given names (repeat `names`, at most 50), in the full format of purchase/available; extended fields with `extended=true`.
         *
         *     Section 4.12 of the merchant API specification.
         */
        get: operations["searchCatalogue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/purchase/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Catalogue change feed: upserts and removals since a cursor
         * @description Beyond the specification: the catalogue change feed, to keep a copy current after a full download. Pass a page `last_update_at` (or the `next` of the previous answer) as `since`; events come oldest first; `more` means ask again at once; `reset` means the cursor is older than the kept history (reload the catalogue, continue from `next`).
         *
         *     since: a cursor (next of a previous answer, or a page last_update_at); omitted = from now. reset: true means the cursor is older than the kept history: reload the whole catalogue, then continue from next.
         */
        get: operations["getCatalogueEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/purchase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Purchase history: filters, sort, paging
         * @description Purchase history with `total` (the number of matches). Filters: `status`, `date_range` (1, 7, 30, 90 or 365 days back), `search` (1–100 characters: merchant_tx_id or item name); `sort` by id, merchant_tx_id, status, amount or created_at (`-` prefix: descending); `limit` 1–500 (default 50), `offset`.
         *
         *     Section 4.10 of the merchant API specification.
         */
        get: operations["listPurchases"];
        put?: never;
        /**
         * Buy a catalogue item by name (cheapest) or by listing ID; idempotent on merchant_tx_id
         * @description Buys a catalogue item for the user: by `name` (the cheapest live listing) or by `asset_id` (a listing ID from purchase/available), at most `max_price` USD. The amount is reserved from your available balance and the offer is sent; the answer has status `pending` (or `failed` with a creation `fail_reason`). Idempotent on `merchant_tx_id`: a repeated id answers the stored purchase with HTTP 200 (`purchase already exists`) and creates nothing. Trade link problems are 400 with the codes of the Errors section.
         *
         *     Answers the purchase itself (initial status pending, or failed with a creation fail_reason). A repeated merchant_tx_id answers the stored purchase with HTTP 200 and creates nothing. Trade link problems are 400 validation errors with the code of spec 7.3.
         *
         *     Section 4.8 of the merchant API specification.
         */
        post: operations["createPurchase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/purchase/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A purchase by id and/or merchant_tx_id
         * @description A purchase by `id` and/or `merchant_tx_id` (at least one, else 400); 404 when nothing of yours matches.
         *
         *     Section 4.9 of the merchant API specification.
         */
        get: operations["getPurchaseStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/sandbox/purchase/{id}/{action}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sandbox: accept, decline, expire, cancel, release or revert a purchase offer
         * @description accept {hold?}: hold (default: the game hold) or completed; decline: canceled canceled_by_user; expire: canceled buyer_too_slow; cancel (new, pending or active): canceled canceled_by_gateway; release: a hold ends now (completed); revert {by: user|gateway}: reverted. Canceled and reverted purchases are refunded in full. 409 invalid transition when the status does not allow it.
         */
        post: operations["sandboxPurchaseAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your webhook events, newest first, with filters and a cursor
         * @description Beyond the specification: your webhook events, newest first (the `webhook-id` header of a delivery is the event `id`). Filter by `type` (`deposit.completed`, or all of a kind: `deposit`, `purchase`, `test`), by record (`deposit_id` or `purchase_id`) and by creation time (`created_from` inclusive, `created_to` exclusive). A page has at most `limit` events; pass `next_cursor` as `cursor` for the next, older page (null: none left). `data` is the body that was or will be sent, without `sign`; `delivery` tells what became of it. Events are written only when a target was set (the deposit `result_url` or your webhook URL); delivered ones are kept `WEBHOOK_RETENTION_DAYS` (30) days after delivery, the others are kept.
         */
        get: operations["listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/merchant/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One of your webhook events with its delivery attempts
         * @description Beyond the specification: one of your events by id (`evt_812` or `812`), with every delivery attempt: time, your answer's status and first KiB, latency, error. Another merchant's event is 404.
         */
        get: operations["getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    depositStatusChanged: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deposit status changed (spec 6.1)
         * @description Sent when a deposit becomes hold, completed, failed, canceled or reverted, to its result_url, else the merchant webhook_url. `sign` = base64(sha256(String(trade_id) + secret)).
         */
        post: operations["depositWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    purchaseStatusChanged: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Purchase status changed (spec 6.2)
         * @description Sent when a purchase becomes active, hold, completed, failed, canceled or reverted, to the merchant webhook_url. `sign` = base64(sha256(String(purchase_id) + secret)).
         */
        post: operations["purchaseWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** FieldError */
        FieldError: {
            /** @description request type and field, e.g. CreateDepositRequest.token */
            field: string;
            /** @description required, len, oneof, min, max, numeric, url, format, type, or a domain code (exist, inventory_reload, trade_link_invalid, …) */
            code: string;
            message: string;
        };
        /** Error */
        Error: {
            /** @enum {boolean} */
            success: false;
            message: string;
            /** @description field errors (validation error, invalid transition, already exist error, …) */
            data?: components["schemas"]["FieldError"][];
        };
        /** DepositWebhook */
        DepositWebhook: {
            /** @description base64(sha256(String(id) + webhook secret)), id = trade_id or purchase_id */
            sign: string;
            /** @enum {string} */
            status: "hold" | "completed" | "failed" | "canceled" | "reverted";
            /** @description the deposit id */
            trade_id: number;
            /**
             * Format: date-time
             * @description when the deposit was created
             */
            trade_date: string;
            merchant_tx_id: string;
            /** @description the user's 64-bit platform ID */
            platform_id: string;
            /** @description trade offer ID (empty when no offer was sent) */
            offer_id: string;
            amount: number;
            /** @enum {string} */
            amount_currency: "usd";
            /**
             * Format: date-time
             * @description present when status is hold
             */
            hold_end_date?: string | null;
            /** @description present when status is failed or canceled */
            fail_reason?: string | null;
        };
        /** PurchaseWebhook */
        PurchaseWebhook: {
            /** @description base64(sha256(String(id) + webhook secret)), id = trade_id or purchase_id */
            sign: string;
            /** @enum {string} */
            status: "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
            purchase_id: number;
            /**
             * Format: date-time
             * @description when the status changed
             */
            trade_date: string;
            /** @description absent when the purchase was created without one */
            merchant_tx_id?: string;
            /** @description the catalogue listing ID bought */
            asset_id?: string;
            /** @description trade offer ID, once sent */
            offer_id?: string;
            amount: number;
            /** @enum {string} */
            amount_currency: "usd";
            /**
             * @description present only when status is failed
             * @enum {string}
             */
            fail_reason?: "insufficient_balance" | "price_changed" | "item_sold" | "item_not_available" | "duplicate_purchase" | "item_specified_price_not_found" | "provider_unavailable" | "canceled_by_user" | "buyer_too_slow" | "gateway_too_slow" | "timeout_error" | "canceled_by_gateway" | "trade_url_error" | "user_reverted" | "gateway_reverted";
        };
    };
    responses: {
        /** @description Bad request: `validation error` with the list of field errors, `invalid request body`, `invalid game code`, `page must be 1 or greater`… */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Missing or invalid credentials */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Merchant disabled, IP not whitelisted, or feature not enabled */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not found, or owned by another merchant */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Duplicate merchant_tx_id, or a status change the current status does not allow */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is larger than BODY_LIMIT_BYTES */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is not application/json */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Internal error, or the trading platform did not answer (`integration service error`): retry with backoff */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Temporarily unavailable (the database restarting or failing over, the catalogue being rebuilt, the gateway busy): retry after Retry-After seconds */
        ServiceUnavailable: {
            headers: {
                /** @description Seconds to wait before retrying */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Over the rate limit (per API key on the merchant API, per client address on the hosted API): nothing was done; retry after Retry-After seconds */
        TooManyRequests: {
            headers: {
                /** @description Seconds to wait before retrying */
                "Retry-After"?: number;
                /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                "RateLimit-Limit"?: number;
                /** @description Requests that may be sent now without waiting */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the full limit is available again */
                "RateLimit-Reset"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Not modified: the page still has the ETag given in If-None-Match */
        NotModified: {
            headers: {
                /** @description Version of this page; send it back in If-None-Match */
                ETag?: string;
                [name: string]: unknown;
            };
            content?: never;
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getBalance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "balance retrieved",
                     *       "data": {
                     *         "total": 1000,
                     *         "hold": 12.96,
                     *         "available": 987.04
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            total: number;
                            hold: number;
                            available: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getInventory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    game: "csgo" | "rust" | "dota2" | "tf2";
                    /** @description Trade partner ID (32-bit account ID) */
                    partner: number;
                    /** @description Trade token, exactly 8 characters */
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "inventory loaded",
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "30012345678001",
                     *             "name": "AK-47 | Redline (Field-Tested)",
                     *             "price": 12.34,
                     *             "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg",
                     *             "exterior": "Field-Tested",
                     *             "rarity": "Classified",
                     *             "rarity_color": "d32ce6"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "sum": 12.34,
                     *         "game": "csgo",
                     *         "max_items": 50
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            items: {
                                id: string;
                                name: string;
                                price: number;
                                image_url: string;
                                exterior?: string;
                                rarity?: string;
                                rarity_color?: string;
                                phase?: string;
                            }[];
                            total: number;
                            sum: number;
                            game: string;
                            max_items: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createDeposit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end */
                    merchant_tx_id: string;
                    /** @enum {string} */
                    game: "csgo" | "rust" | "dota2" | "tf2";
                    /** @description Trade partner ID (32-bit account ID) */
                    partner: number;
                    /** @description Trade token, exactly 8 characters */
                    token: string;
                    asset_ids: string[];
                    /** @description Object: asset_id → minimum USD price (number or numeric string). Values that are not prices, and values of 0 or below, are ignored. */
                    min_prices?: unknown;
                    from_preview?: boolean;
                    /** Format: http-url */
                    result_url?: string;
                    /** Format: http-url */
                    success_url?: string;
                    /** Format: http-url */
                    fail_url?: string;
                    custom_currency?: string;
                    custom_currency_multiplier?: number;
                    custom_currency_rate?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "deposit created",
                     *       "data": {
                     *         "id": 42,
                     *         "merchant_tx_id": "order-1001",
                     *         "status": "active",
                     *         "amount": 12.34,
                     *         "bot_name": "sandbox-bot-1",
                     *         "bot_platform_id": 76561198000000000,
                     *         "trade_offer_id": "7310000042",
                     *         "trade_offer_expiry_at": "2026-11-23T10:25:02.417Z",
                     *         "fail_reason": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            id: number;
                            merchant_tx_id: string | null;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            amount: number;
                            bot_name: string | null;
                            /**
                             * Format: int64
                             * @description 64-bit platform ID of the bot, a JSON integer as the spec says: above 2^53, so parse it with a big-integer-aware JSON reader to keep it exact
                             */
                            bot_platform_id: string | null;
                            trade_offer_id: string | null;
                            trade_offer_expiry_at: string | null;
                            fail_reason?: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPrices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    game: "csgo" | "rust" | "dota2" | "tf2";
                    marketHashNames: string[];
                    /** @default false */
                    no_deposit_intent?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "prices quoted",
                     *       "data": {
                     *         "id": 43,
                     *         "total": 2,
                     *         "sum": 40.84,
                     *         "items": [
                     *           {
                     *             "name": "AK-47 | Redline (Field-Tested)",
                     *             "price": 12.34,
                     *             "originalPrice": 12.34
                     *           },
                     *           {
                     *             "name": "AWP | Asiimov (Battle-Scarred)",
                     *             "price": 28.5,
                     *             "originalPrice": 28.5
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            id?: number;
                            total: number;
                            sum: number;
                            items: {
                                name: string;
                                price: number;
                                originalPrice: number;
                            }[] | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createDepositByHashName: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id: number;
                    /** @description your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end */
                    merchant_tx_id: string;
                    /** @enum {string} */
                    game: "csgo" | "rust" | "dota2" | "tf2";
                    /** @description Trade partner ID (32-bit account ID) */
                    partner: number;
                    /** @description Trade token, exactly 8 characters */
                    token: string;
                    items: {
                        asset_id: string;
                        name: string;
                        min_price?: number | null;
                    }[];
                    /** Format: http-url */
                    result_url?: string;
                    /** Format: http-url */
                    success_url?: string;
                    /** Format: http-url */
                    fail_url?: string;
                    custom_currency?: string;
                    custom_currency_multiplier?: number;
                    custom_currency_rate?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "deposit created",
                     *       "data": {
                     *         "id": 42,
                     *         "merchant_tx_id": "order-1001",
                     *         "status": "active",
                     *         "amount": 12.34,
                     *         "bot_name": "sandbox-bot-1",
                     *         "bot_platform_id": 76561198000000000,
                     *         "trade_offer_id": "7310000042",
                     *         "trade_offer_expiry_at": "2026-11-23T10:25:02.417Z",
                     *         "fail_reason": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            id: number;
                            merchant_tx_id: string | null;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            amount: number;
                            bot_name: string | null;
                            /**
                             * Format: int64
                             * @description 64-bit platform ID of the bot, a JSON integer as the spec says: above 2^53, so parse it with a big-integer-aware JSON reader to keep it exact
                             */
                            bot_platform_id: string | null;
                            trade_offer_id: string | null;
                            trade_offer_expiry_at: string | null;
                            fail_reason?: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    previewDeposit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    game: "csgo" | "rust" | "dota2" | "tf2";
                    /** @description Trade partner ID (32-bit account ID) */
                    partner?: number;
                    /** @description Trade token, exactly 8 characters */
                    token?: string;
                    items?: {
                        asset_id: string;
                        name: string;
                        icon_url: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "preview quoted",
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "30012345678001",
                     *             "name": "AK-47 | Redline (Field-Tested)",
                     *             "price": 12.34,
                     *             "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg",
                     *             "exterior": "Field-Tested",
                     *             "rarity": "Classified",
                     *             "rarity_color": "d32ce6"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "sum": 12.34,
                     *         "game": "csgo",
                     *         "max_items": 50
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            items: {
                                id: string;
                                name: string;
                                price: number;
                                image_url?: string;
                                exterior?: string;
                                rarity?: string;
                                rarity_color?: string;
                                phase?: string;
                            }[];
                            total: number;
                            sum: number;
                            game: string;
                            max_items: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getDepositStatus: {
        parameters: {
            query?: {
                /** @example 42 */
                id?: number;
                /**
                 * @description your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end
                 * @example order-1001
                 */
                merchant_tx_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "deposit found",
                     *       "data": {
                     *         "id": 42,
                     *         "merchant_tx_id": "order-1001",
                     *         "status": "hold",
                     *         "amount": 12.34,
                     *         "bot_name": "sandbox-bot-1",
                     *         "bot_platform_id": 76561198000000000,
                     *         "trade_offer_id": "7310000042",
                     *         "trade_offer_expiry_at": "2026-11-23T10:25:02.417Z",
                     *         "hold_end_date": "2026-11-30T10:16:40.000Z",
                     *         "fail_reason": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            id: number;
                            merchant_tx_id: string | null;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            amount: number;
                            bot_name: string | null;
                            /**
                             * Format: int64
                             * @description 64-bit platform ID of the bot, a JSON integer as the spec says: above 2^53, so parse it with a big-integer-aware JSON reader to keep it exact
                             */
                            bot_platform_id: string | null;
                            trade_offer_id: string | null;
                            trade_offer_expiry_at: string | null;
                            success_url?: string;
                            fail_url?: string;
                            hold_end_date?: string | null;
                            fail_reason: string | null;
                            custom_currency?: string | null;
                            custom_currency_multiplier?: number | null;
                            custom_currency_rate?: number | null;
                            custom_currency_sum?: number | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sandboxDepositAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 42 */
                id: number;
                /** @example accept */
                action: "accept" | "decline" | "expire" | "cancel" | "release" | "revert";
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description accept only: false = completed at once, true = the game hold (default) */
                    hold?: boolean;
                    /**
                     * @description revert only: who reverted the trade
                     * @enum {string}
                     */
                    by?: "user" | "gateway";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "deposit",
                     *       "data": {
                     *         "id": 42,
                     *         "merchant_tx_id": "order-1001",
                     *         "status": "completed",
                     *         "amount": 12.34,
                     *         "bot_name": "sandbox-bot-1",
                     *         "bot_platform_id": 76561198000000000,
                     *         "trade_offer_id": "7310000042",
                     *         "trade_offer_expiry_at": "2026-11-23T10:25:02.417Z",
                     *         "hold_end_date": null,
                     *         "fail_reason": null
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            id: number;
                            merchant_tx_id: string | null;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            amount: number;
                            bot_name: string | null;
                            /**
                             * Format: int64
                             * @description 64-bit platform ID of the bot, a JSON integer as the spec says: above 2^53, so parse it with a big-integer-aware JSON reader to keep it exact
                             */
                            bot_platform_id: string | null;
                            trade_offer_id: string | null;
                            trade_offer_expiry_at: string | null;
                            success_url?: string;
                            fail_url?: string;
                            hold_end_date?: string | null;
                            fail_reason: string | null;
                            custom_currency?: string | null;
                            custom_currency_multiplier?: number | null;
                            custom_currency_rate?: number | null;
                            custom_currency_sum?: number | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createIntent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end */
                    merchant_tx_id: string;
                    /** @enum {string} */
                    game?: "csgo" | "rust" | "dota2" | "tf2";
                    /** @description Trade partner ID (32-bit account ID) */
                    partner?: number;
                    /** @description Trade token, exactly 8 characters */
                    token?: string;
                    /** Format: http-url */
                    result_url?: string;
                    /** Format: http-url */
                    success_url?: string;
                    /** Format: http-url */
                    fail_url?: string;
                    /** @description 1 to 4 characters; all three currency fields together */
                    custom_currency?: string;
                    custom_currency_multiplier?: number;
                    custom_currency_rate?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "intent created",
                     *       "data": {
                     *         "id": 44,
                     *         "merchant_tx_id": "order-1003",
                     *         "url": "https://gateway.example/deposit/dpt_Yk3s9QmW0aZr2LxE7vNc"
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            id: number;
                            merchant_tx_id: string;
                            /** @description Address of the hosted deposit page */
                            url: string;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCatalogue: {
        parameters: {
            query: {
                /**
                 * @description csgo, rust, dota2 or tf2
                 * @example csgo
                 */
                game: string;
                /**
                 * @description true: one entry per listing; false (default): grouped by name
                 * @example true
                 */
                full?: string;
                /**
                 * @description extra fields (full format only)
                 * @example false
                 */
                extended?: string;
                /**
                 * @description page 1 to 16; omit for the whole catalogue in one (streamed) response
                 * @example 2
                 */
                page?: string;
            };
            header?: {
                /**
                 * @description the ETag of your copy of the page: 304 while it is current
                 * @example "c3VwZXJ2aXNvcg"
                 */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Version of this page; send it back in If-None-Match */
                    ETag?: string;
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "catalogue page listed",
                     *       "data": {
                     *         "game": "csgo",
                     *         "total": 5000,
                     *         "items": [
                     *           {
                     *             "id": "L000000000123",
                     *             "name": "AK-47 | Redline (Field-Tested)",
                     *             "price": 12.96,
                     *             "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg",
                     *             "exterior": "Field-Tested",
                     *             "rarity": "Classified",
                     *             "rarity_color": "d32ce6"
                     *           }
                     *         ],
                     *         "page": 2,
                     *         "total_pages": 16,
                     *         "count": 1,
                     *         "next": "game=csgo&full=true&page=3",
                     *         "previous": "game=csgo&full=true&page=1",
                     *         "last_update_at": "2026-11-23T10:15:02.417Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            /** @enum {string} */
                            game: "csgo" | "rust" | "dota2" | "tf2";
                            /** @description live listings (full) or names (grouped) of the game */
                            total: number;
                            /** @description Listing entries with full=true, ListingGroup entries otherwise */
                            items: ({
                                /** @description listing ID: the asset_id to buy this very listing */
                                id: string;
                                name: string;
                                /** @description price for this merchant (USD) */
                                price: number;
                                image_url: string;
                                exterior?: string;
                                rarity?: string;
                                /** @description hex colour without # */
                                rarity_color?: string;
                                /** @description extended */
                                class_id?: number;
                                /** @description extended */
                                instance_id?: number;
                                /** @description extended */
                                asset_id?: string;
                                /** @description extended (csgo) */
                                float?: number;
                                /** @description extended (csgo) */
                                paint_seed?: number;
                                /** @description extended */
                                inspect_url?: string;
                                /** @description extended (doppler phases) */
                                phase?: string;
                            } | {
                                name: string;
                                /** @description live listings with this name */
                                count: number;
                                /** @description the cheapest listing (USD) */
                                price: number;
                                /** @enum {string} */
                                game: "csgo" | "rust" | "dota2" | "tf2";
                                image_url: string;
                            })[];
                            page: number;
                            /** @description 16 with full=true, 1 grouped */
                            total_pages: number;
                            /** @description entries on this page */
                            count: number;
                            /** @description query string of the next page */
                            next: string | null;
                            /** @description query string of the previous page */
                            previous: string | null;
                            /**
                             * Format: date-time
                             * @description last change of this page: a cursor for /purchase/events
                             */
                            last_update_at: string;
                        } | {
                            /** @enum {string} */
                            game: "csgo" | "rust" | "dota2" | "tf2";
                            /** @description Listing entries with full=true, ListingGroup entries otherwise */
                            items: ({
                                /** @description listing ID: the asset_id to buy this very listing */
                                id: string;
                                name: string;
                                /** @description price for this merchant (USD) */
                                price: number;
                                image_url: string;
                                exterior?: string;
                                rarity?: string;
                                /** @description hex colour without # */
                                rarity_color?: string;
                                /** @description extended */
                                class_id?: number;
                                /** @description extended */
                                instance_id?: number;
                                /** @description extended */
                                asset_id?: string;
                                /** @description extended (csgo) */
                                float?: number;
                                /** @description extended (csgo) */
                                paint_seed?: number;
                                /** @description extended */
                                inspect_url?: string;
                                /** @description extended (doppler phases) */
                                phase?: string;
                            } | {
                                name: string;
                                /** @description live listings with this name */
                                count: number;
                                /** @description the cheapest listing (USD) */
                                price: number;
                                /** @enum {string} */
                                game: "csgo" | "rust" | "dota2" | "tf2";
                                image_url: string;
                            })[];
                            /** @description entries in items */
                            total: number;
                        };
                    };
                };
            };
            304: components["responses"]["NotModified"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    searchCatalogue: {
        parameters: {
            query: {
                /** @example csgo */
                game: string;
                /**
                 * @description repeat the parameter per name; at most 50
                 * @example [
                 *       "AK-47 | Redline (Field-Tested)"
                 *     ]
                 */
                names: string[];
                /**
                 * @description true or false (also 1/0)
                 * @example false
                 */
                extended?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "search results listed",
                     *       "data": {
                     *         "game": "csgo",
                     *         "total": 1,
                     *         "items": [
                     *           {
                     *             "id": "L000000000123",
                     *             "name": "AK-47 | Redline (Field-Tested)",
                     *             "price": 12.96,
                     *             "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg",
                     *             "exterior": "Field-Tested",
                     *             "rarity": "Classified",
                     *             "rarity_color": "d32ce6"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** SearchResult */
                        data: {
                            /** @enum {string} */
                            game: "csgo" | "rust" | "dota2" | "tf2";
                            total: number;
                            items: {
                                /** @description listing ID: the asset_id to buy this very listing */
                                id: string;
                                name: string;
                                /** @description price for this merchant (USD) */
                                price: number;
                                image_url: string;
                                exterior?: string;
                                rarity?: string;
                                /** @description hex colour without # */
                                rarity_color?: string;
                                /** @description extended */
                                class_id?: number;
                                /** @description extended */
                                instance_id?: number;
                                /** @description extended */
                                asset_id?: string;
                                /** @description extended (csgo) */
                                float?: number;
                                /** @description extended (csgo) */
                                paint_seed?: number;
                                /** @description extended */
                                inspect_url?: string;
                                /** @description extended (doppler phases) */
                                phase?: string;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getCatalogueEvents: {
        parameters: {
            query?: {
                /**
                 * @description cursor (next of a previous answer, or a page last_update_at); omitted = from now
                 * @example 2026-11-23T10:15:00.000Z
                 */
                since?: string;
                /** @example csgo */
                game?: string;
                /**
                 * @description true or false (also 1/0)
                 * @example false
                 */
                extended?: string;
                /** @example 50 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "catalogue events listed",
                     *       "data": {
                     *         "since": "2026-11-23T10:15:00.000Z",
                     *         "next": "2026-11-23T10:15:02.418Z",
                     *         "count": 2,
                     *         "more": false,
                     *         "reset": false,
                     *         "events": [
                     *           {
                     *             "type": "upsert",
                     *             "at": "2026-11-23T10:15:02.417Z",
                     *             "game": "csgo",
                     *             "id": "L000000000124",
                     *             "item": {
                     *               "id": "L000000000124",
                     *               "name": "AK-47 | Redline (Field-Tested)",
                     *               "price": 13.1,
                     *               "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg",
                     *               "exterior": "Field-Tested",
                     *               "rarity": "Classified",
                     *               "rarity_color": "d32ce6"
                     *             }
                     *           },
                     *           {
                     *             "type": "remove",
                     *             "at": "2026-11-23T10:15:02.417Z",
                     *             "game": "csgo",
                     *             "id": "L000000000123"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** CatalogueEvents */
                        data: {
                            /**
                             * Format: date-time
                             * @description the cursor this answer starts at
                             */
                            since: string;
                            /**
                             * Format: date-time
                             * @description pass as since to continue
                             */
                            next: string;
                            count: number;
                            /** @description true: more events wait after next; ask again at once */
                            more: boolean;
                            /** @description true: since is older than the kept history; reload the catalogue, then continue from next */
                            reset: boolean;
                            events: {
                                /** @enum {string} */
                                type: "upsert" | "remove";
                                /** Format: date-time */
                                at: string;
                                /** @enum {string} */
                                game: "csgo" | "rust" | "dota2" | "tf2";
                                /** @description listing ID */
                                id: string;
                                /** Listing */
                                item?: {
                                    /** @description listing ID: the asset_id to buy this very listing */
                                    id: string;
                                    name: string;
                                    /** @description price for this merchant (USD) */
                                    price: number;
                                    image_url: string;
                                    exterior?: string;
                                    rarity?: string;
                                    /** @description hex colour without # */
                                    rarity_color?: string;
                                    /** @description extended */
                                    class_id?: number;
                                    /** @description extended */
                                    instance_id?: number;
                                    /** @description extended */
                                    asset_id?: string;
                                    /** @description extended (csgo) */
                                    float?: number;
                                    /** @description extended (csgo) */
                                    paint_seed?: number;
                                    /** @description extended */
                                    inspect_url?: string;
                                    /** @description extended (doppler phases) */
                                    phase?: string;
                                };
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listPurchases: {
        parameters: {
            query?: {
                /** @example 50 */
                limit?: number;
                /** @example 0 */
                offset?: number;
                /** @example completed */
                status?: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                /**
                 * @description days to look back: 1, 7, 30, 90 or 365
                 * @example 30
                 */
                date_range?: 1 | 7 | 30 | 90 | 365;
                /**
                 * @description matches merchant_tx_id or item name
                 * @example buy-2001
                 */
                search?: string;
                /** @example -id */
                sort?: "id" | "-id" | "merchant_tx_id" | "-merchant_tx_id" | "status" | "-status" | "amount" | "-amount" | "created_at" | "-created_at";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "purchases listed",
                     *       "data": {
                     *         "data": [
                     *           {
                     *             "id": 7,
                     *             "merchant_tx_id": "buy-2001",
                     *             "status": "completed",
                     *             "platform_id": "76561197972691406",
                     *             "amount": 12.96,
                     *             "date": "2026-11-23T10:15:02.417Z",
                     *             "item": {
                     *               "id": "L000000000123",
                     *               "name": "AK-47 | Redline (Field-Tested)",
                     *               "price": 12.96,
                     *               "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg"
                     *             },
                     *             "trade_offer_id": "7320000007"
                     *           }
                     *         ],
                     *         "total": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        data: {
                            data: {
                                id: number;
                                merchant_tx_id?: string;
                                /** @enum {string} */
                                status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                                /**
                                 * @description when failed, canceled or reverted (spec 3.3)
                                 * @enum {string}
                                 */
                                fail_reason?: "insufficient_balance" | "price_changed" | "item_sold" | "item_not_available" | "duplicate_purchase" | "item_specified_price_not_found" | "provider_unavailable" | "canceled_by_user" | "buyer_too_slow" | "gateway_too_slow" | "timeout_error" | "canceled_by_gateway" | "trade_url_error" | "user_reverted" | "gateway_reverted";
                                platform_id: string;
                                platform_name?: string;
                                platform_avatar_url?: string;
                                amount: number;
                                trade_offer_id?: string;
                                hold_end_date?: string;
                                date: string;
                                item?: {
                                    id: string;
                                    name: string;
                                    price: number;
                                    image_url: string;
                                };
                            }[];
                            total: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createPurchase: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Trade partner ID (32-bit account ID) */
                    partner: number;
                    /** @description Trade token, exactly 8 characters */
                    token: string;
                    /** @enum {string} */
                    game: "csgo" | "rust" | "dota2" | "tf2";
                    /** @description item market name; either name or asset_id */
                    name?: string;
                    /** @description catalogue listing ID (id from purchase/available); either name or asset_id */
                    asset_id?: string;
                    /** @description your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end */
                    merchant_tx_id?: string;
                    /** @description maximum price accepted (USD, at most 3 decimals) */
                    max_price?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "purchase created",
                     *       "data": {
                     *         "id": 7,
                     *         "merchant_tx_id": "buy-2001",
                     *         "status": "pending",
                     *         "platform_id": "76561197972691406",
                     *         "amount": 12.96,
                     *         "date": "2026-11-23T10:15:02.417Z",
                     *         "item": {
                     *           "id": "L000000000123",
                     *           "name": "AK-47 | Redline (Field-Tested)",
                     *           "price": 12.96,
                     *           "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** Purchase */
                        data: {
                            id: number;
                            merchant_tx_id?: string;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            /**
                             * @description when failed, canceled or reverted (spec 3.3)
                             * @enum {string}
                             */
                            fail_reason?: "insufficient_balance" | "price_changed" | "item_sold" | "item_not_available" | "duplicate_purchase" | "item_specified_price_not_found" | "provider_unavailable" | "canceled_by_user" | "buyer_too_slow" | "gateway_too_slow" | "timeout_error" | "canceled_by_gateway" | "trade_url_error" | "user_reverted" | "gateway_reverted";
                            platform_id: string;
                            platform_name?: string;
                            platform_avatar_url?: string;
                            amount: number;
                            trade_offer_id?: string;
                            hold_end_date?: string;
                            date: string;
                            item?: {
                                id: string;
                                name: string;
                                price: number;
                                image_url: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPurchaseStatus: {
        parameters: {
            query?: {
                /** @example 42 */
                id?: number;
                /**
                 * @description your order id, unique per merchant: 1 to 128 characters, any script; no control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029), no whitespace at either end
                 * @example order-1001
                 */
                merchant_tx_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "purchase found",
                     *       "data": {
                     *         "id": 7,
                     *         "merchant_tx_id": "buy-2001",
                     *         "status": "hold",
                     *         "platform_id": "76561197972691406",
                     *         "amount": 12.96,
                     *         "date": "2026-11-23T10:15:02.417Z",
                     *         "item": {
                     *           "id": "L000000000123",
                     *           "name": "AK-47 | Redline (Field-Tested)",
                     *           "price": 12.96,
                     *           "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg"
                     *         },
                     *         "trade_offer_id": "7320000007",
                     *         "hold_end_date": "2026-11-30T10:15:40.000Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** Purchase */
                        data: {
                            id: number;
                            merchant_tx_id?: string;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            /**
                             * @description when failed, canceled or reverted (spec 3.3)
                             * @enum {string}
                             */
                            fail_reason?: "insufficient_balance" | "price_changed" | "item_sold" | "item_not_available" | "duplicate_purchase" | "item_specified_price_not_found" | "provider_unavailable" | "canceled_by_user" | "buyer_too_slow" | "gateway_too_slow" | "timeout_error" | "canceled_by_gateway" | "trade_url_error" | "user_reverted" | "gateway_reverted";
                            platform_id: string;
                            platform_name?: string;
                            platform_avatar_url?: string;
                            amount: number;
                            trade_offer_id?: string;
                            hold_end_date?: string;
                            date: string;
                            item?: {
                                id: string;
                                name: string;
                                price: number;
                                image_url: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sandboxPurchaseAction: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 42 */
                id: number;
                /** @example accept */
                action: "accept" | "decline" | "expire" | "cancel" | "release" | "revert";
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description accept only: false = completed at once, true = the game hold (default) */
                    hold?: boolean;
                    /**
                     * @description revert only: who reverted the trade
                     * @enum {string}
                     */
                    by?: "user" | "gateway";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "purchase",
                     *       "data": {
                     *         "id": 7,
                     *         "merchant_tx_id": "buy-2001",
                     *         "status": "completed",
                     *         "platform_id": "76561197972691406",
                     *         "amount": 12.96,
                     *         "date": "2026-11-23T10:15:02.417Z",
                     *         "item": {
                     *           "id": "L000000000123",
                     *           "name": "AK-47 | Redline (Field-Tested)",
                     *           "price": 12.96,
                     *           "image_url": "https://gateway.example/static/item-image/csgo/AK-47%20%7C%20Redline%20(Field-Tested).svg"
                     *         },
                     *         "trade_offer_id": "7320000007"
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** Purchase */
                        data: {
                            id: number;
                            merchant_tx_id?: string;
                            /** @enum {string} */
                            status: "new" | "pending" | "active" | "hold" | "completed" | "failed" | "canceled" | "reverted";
                            /**
                             * @description when failed, canceled or reverted (spec 3.3)
                             * @enum {string}
                             */
                            fail_reason?: "insufficient_balance" | "price_changed" | "item_sold" | "item_not_available" | "duplicate_purchase" | "item_specified_price_not_found" | "provider_unavailable" | "canceled_by_user" | "buyer_too_slow" | "gateway_too_slow" | "timeout_error" | "canceled_by_gateway" | "trade_url_error" | "user_reverted" | "gateway_reverted";
                            platform_id: string;
                            platform_name?: string;
                            platform_avatar_url?: string;
                            amount: number;
                            trade_offer_id?: string;
                            hold_end_date?: string;
                            date: string;
                            item?: {
                                id: string;
                                name: string;
                                price: number;
                                image_url: string;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @example 50 */
                limit?: number;
                /**
                 * @description next_cursor of the previous page: the events older than it
                 * @example evt_812
                 */
                cursor?: string;
                /**
                 * @description an event type (deposit.completed) or all of a kind (deposit, purchase, test)
                 * @example deposit.completed
                 */
                type?: "deposit.hold" | "deposit.completed" | "deposit.failed" | "deposit.canceled" | "deposit.reverted" | "purchase.active" | "purchase.hold" | "purchase.completed" | "purchase.failed" | "purchase.canceled" | "purchase.reverted" | "test" | "deposit" | "purchase";
                /**
                 * @description the events of this deposit
                 * @example 42
                 */
                deposit_id?: number;
                /**
                 * @description the events of this purchase
                 * @example 7
                 */
                purchase_id?: number;
                /**
                 * @description events created at or after this time
                 * @example 2026-11-23T00:00:00.000Z
                 */
                created_from?: string;
                /**
                 * @description events created before this time
                 * @example 2026-11-24T00:00:00.000Z
                 */
                created_to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "events listed",
                     *       "data": {
                     *         "events": [
                     *           {
                     *             "id": "evt_812",
                     *             "type": "deposit.completed",
                     *             "record_kind": "deposit",
                     *             "record_id": 42,
                     *             "merchant_tx_id": "order-1001",
                     *             "created_at": "2026-11-23T10:15:02.417Z",
                     *             "data": {
                     *               "status": "completed",
                     *               "trade_id": 42,
                     *               "trade_date": "2026-11-23T10:05:02.417Z",
                     *               "merchant_tx_id": "order-1001",
                     *               "platform_id": "76561197972611406",
                     *               "offer_id": "7310000042",
                     *               "amount": 12.34,
                     *               "amount_currency": "usd"
                     *             },
                     *             "delivery": {
                     *               "state": "delivered",
                     *               "target_url": "https://shop.example/hooks/deposits",
                     *               "attempt_count": 1,
                     *               "next_attempt_at": null,
                     *               "last_attempt_at": "2026-11-23T10:15:02.417Z",
                     *               "last_status_code": 200,
                     *               "last_error": null,
                     *               "delivered_at": "2026-11-23T10:15:02.417Z"
                     *             }
                     *           }
                     *         ],
                     *         "next_cursor": "evt_812"
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** EventList */
                        data: {
                            events: {
                                /** @description evt_<n>: the webhook-id header of its deliveries */
                                id: string;
                                /** @enum {string} */
                                type: "deposit.hold" | "deposit.completed" | "deposit.failed" | "deposit.canceled" | "deposit.reverted" | "purchase.active" | "purchase.hold" | "purchase.completed" | "purchase.failed" | "purchase.canceled" | "purchase.reverted" | "test";
                                /** @enum {string} */
                                record_kind: "deposit" | "purchase" | "test";
                                /** @description the deposit (trade_id) or purchase id; 0 for test events */
                                record_id: number;
                                merchant_tx_id: string | null;
                                /** Format: date-time */
                                created_at: string;
                                /** @description the webhook body, without sign */
                                data: {
                                    [key: string]: unknown;
                                };
                                /** EventDelivery */
                                delivery: {
                                    /**
                                     * @description pending (being sent or waiting for a retry), delivered (a 2xx came back), exhausted (no more attempts)
                                     * @enum {string}
                                     */
                                    state: "pending" | "delivered" | "exhausted";
                                    target_url: string;
                                    attempt_count: number;
                                    /**
                                     * Format: date-time
                                     * @description when pending: the next attempt
                                     */
                                    next_attempt_at: string | null;
                                    /** Format: date-time */
                                    last_attempt_at: string | null;
                                    last_status_code: number | null;
                                    last_error: string | null;
                                    /** Format: date-time */
                                    delivered_at: string | null;
                                };
                            }[];
                            /** @description pass as cursor for the next (older) page; null: no more */
                            next_cursor: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description evt_<n> (the webhook-id header) or n
                 * @example 42
                 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Requests allowed per minute (per API key; per client address on the hosted API). Also the most that may be sent at once */
                    "RateLimit-Limit"?: number;
                    /** @description Requests that may be sent now without waiting */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the full limit is available again */
                    "RateLimit-Reset"?: number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "message": "event found",
                     *       "data": {
                     *         "id": "evt_812",
                     *         "type": "deposit.completed",
                     *         "record_kind": "deposit",
                     *         "record_id": 42,
                     *         "merchant_tx_id": "order-1001",
                     *         "created_at": "2026-11-23T10:15:02.417Z",
                     *         "data": {
                     *           "status": "completed",
                     *           "trade_id": 42,
                     *           "trade_date": "2026-11-23T10:05:02.417Z",
                     *           "merchant_tx_id": "order-1001",
                     *           "platform_id": "76561197972611406",
                     *           "offer_id": "7310000042",
                     *           "amount": 12.34,
                     *           "amount_currency": "usd"
                     *         },
                     *         "delivery": {
                     *           "state": "delivered",
                     *           "target_url": "https://shop.example/hooks/deposits",
                     *           "attempt_count": 1,
                     *           "next_attempt_at": null,
                     *           "last_attempt_at": "2026-11-23T10:15:02.417Z",
                     *           "last_status_code": 200,
                     *           "last_error": null,
                     *           "delivered_at": "2026-11-23T10:15:02.417Z"
                     *         },
                     *         "attempts": [
                     *           {
                     *             "attempt": 1,
                     *             "attempted_at": "2026-11-23T10:15:02.417Z",
                     *             "target_url": "https://shop.example/hooks/deposits",
                     *             "status_code": 200,
                     *             "latency_ms": 41,
                     *             "error": null,
                     *             "response_excerpt": "ok"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** EventWithAttempts */
                        data: {
                            /** @description evt_<n>: the webhook-id header of its deliveries */
                            id: string;
                            /** @enum {string} */
                            type: "deposit.hold" | "deposit.completed" | "deposit.failed" | "deposit.canceled" | "deposit.reverted" | "purchase.active" | "purchase.hold" | "purchase.completed" | "purchase.failed" | "purchase.canceled" | "purchase.reverted" | "test";
                            /** @enum {string} */
                            record_kind: "deposit" | "purchase" | "test";
                            /** @description the deposit (trade_id) or purchase id; 0 for test events */
                            record_id: number;
                            merchant_tx_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** @description the webhook body, without sign */
                            data: {
                                [key: string]: unknown;
                            };
                            /** EventDelivery */
                            delivery: {
                                /**
                                 * @description pending (being sent or waiting for a retry), delivered (a 2xx came back), exhausted (no more attempts)
                                 * @enum {string}
                                 */
                                state: "pending" | "delivered" | "exhausted";
                                target_url: string;
                                attempt_count: number;
                                /**
                                 * Format: date-time
                                 * @description when pending: the next attempt
                                 */
                                next_attempt_at: string | null;
                                /** Format: date-time */
                                last_attempt_at: string | null;
                                last_status_code: number | null;
                                last_error: string | null;
                                /** Format: date-time */
                                delivered_at: string | null;
                            };
                            attempts: {
                                attempt: number;
                                /** Format: date-time */
                                attempted_at: string;
                                target_url: string;
                                /** @description null: no HTTP answer (see error) */
                                status_code: number | null;
                                latency_ms: number;
                                error: string | null;
                                /** @description the first KiB of your answer */
                                response_excerpt: string | null;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    depositWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description event id, stable across retries: deduplicate on it
                 * @example evt_12
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds of this attempt
                 * @example 1795428902
                 */
                "webhook-timestamp": string;
                /**
                 * @description v1,<base64 HMAC-SHA256 of "id.timestamp.body">, keyed with the bytes after whsec_
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sign": "q1c1cJx0m3mD5V7Zl0m7y4Jb9kq8v2sU1qf3YpQ0m5E=",
                 *       "status": "hold",
                 *       "trade_id": 42,
                 *       "trade_date": "2026-11-23T10:15:02.417Z",
                 *       "merchant_tx_id": "order-1001",
                 *       "platform_id": "76561197972691406",
                 *       "offer_id": "7310000042",
                 *       "amount": 12.34,
                 *       "amount_currency": "usd",
                 *       "hold_end_date": "2026-11-30T10:16:40.000Z"
                 *     }
                 */
                "application/json": components["schemas"]["DepositWebhook"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the event; anything else (or no answer within 15 s) is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not acknowledged: retried on the schedule */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    purchaseWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description event id, stable across retries: deduplicate on it
                 * @example evt_12
                 */
                "webhook-id": string;
                /**
                 * @description Unix seconds of this attempt
                 * @example 1795428902
                 */
                "webhook-timestamp": string;
                /**
                 * @description v1,<base64 HMAC-SHA256 of "id.timestamp.body">, keyed with the bytes after whsec_
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sign": "H8v2Kd0rX4m1Qz7Lp3Nc6Ty9Ws5Fb2Jg8Ue1Ao4Ri0=",
                 *       "status": "failed",
                 *       "purchase_id": 7,
                 *       "trade_date": "2026-11-23T10:15:02.417Z",
                 *       "merchant_tx_id": "buy-2001",
                 *       "asset_id": "L000000000123",
                 *       "amount": 12.96,
                 *       "amount_currency": "usd",
                 *       "fail_reason": "trade_url_error"
                 *     }
                 */
                "application/json": components["schemas"]["PurchaseWebhook"];
            };
        };
        responses: {
            /** @description Any 2xx acknowledges the event; anything else (or no answer within 15 s) is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not acknowledged: retried on the schedule */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

export const OPERATIONS = {
  "createDeposit": {
    "method": "POST",
    "path": "/create-deposit"
  },
  "createDepositByHashName": {
    "method": "POST",
    "path": "/create-deposit-by-hash-name"
  },
  "createIntent": {
    "method": "POST",
    "path": "/create-intent"
  },
  "createPurchase": {
    "method": "POST",
    "path": "/purchase"
  },
  "getBalance": {
    "method": "GET",
    "path": "/balance"
  },
  "getCatalogue": {
    "method": "GET",
    "path": "/purchase/available"
  },
  "getCatalogueEvents": {
    "method": "GET",
    "path": "/purchase/events"
  },
  "getDepositStatus": {
    "method": "GET",
    "path": "/deposit/status"
  },
  "getEvent": {
    "method": "GET",
    "path": "/events/{id}"
  },
  "getInventory": {
    "method": "POST",
    "path": "/inventory"
  },
  "getPrices": {
    "method": "POST",
    "path": "/get-prices"
  },
  "getPurchaseStatus": {
    "method": "GET",
    "path": "/purchase/status"
  },
  "listEvents": {
    "method": "GET",
    "path": "/events"
  },
  "listPurchases": {
    "method": "GET",
    "path": "/purchase"
  },
  "previewDeposit": {
    "method": "POST",
    "path": "/deposit-preview"
  },
  "sandboxDepositAction": {
    "method": "POST",
    "path": "/sandbox/deposit/{id}/{action}"
  },
  "sandboxPurchaseAction": {
    "method": "POST",
    "path": "/sandbox/purchase/{id}/{action}"
  },
  "searchCatalogue": {
    "method": "GET",
    "path": "/purchase/search"
  }
} as const;

/** 64-bit integer fields: read as strings (JSON.parse would round them). */
export const INT64_FIELDS: readonly string[] = ["bot_platform_id"];
