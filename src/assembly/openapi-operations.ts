// Per operation of the document: its operationId, its tag (the spec's sections), the error statuses
// it can answer, and its examples. openapi-document.ts applies this to the generated document; a
// contract test fails when a route is missing here.
import * as X from './openapi-examples.js';
import { examples as A } from '../modules/accounts/account-schemas.js';
import { priceExamples as P } from '../modules/pricing/price-admin-examples.js';

export type ErrorStatus = 304 | 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503;

export interface OperationInfo {
  id: string;
  tag: string;
  errors: ErrorStatus[];
  /** The spec section, linked in the description. */
  spec?: string;
  request?: unknown;
  /** Success examples by status; the key `200` is used when the route answers 200. */
  response?: Record<string, unknown>;
  /** Extra named request examples. */
  requests?: Record<string, unknown>;
}

// 429: the per-key and per-address limits (http/rate-limit.ts); the hosted door also sheds load (503).
// 503 on the merchant deposit paths: no bot can take the call now (every bot serving the game is out of rotation).
const MERCHANT: ErrorStatus[] = [400, 401, 403, 429, 500];
const WITH_BODY: ErrorStatus[] = [413, 415];
const ADMIN: ErrorStatus[] = [400, 401, 500];
const HOSTED: ErrorStatus[] = [400, 403, 404, 429, 500, 503];

const m = '/api/v1/merchant';
const a = '/api/admin';
const h = '/api/v1/hosted/{token}';

export const OPERATIONS: Record<string, OperationInfo> = {
  [`post ${m}/create-intent`]: { id: 'createIntent', tag: 'Redirect flow', spec: '4.1', errors: [...MERCHANT, 409, ...WITH_BODY, 503], request: X.createIntentRequest, response: { 200: X.createIntentResponse } },
  [`post ${m}/inventory`]: { id: 'getInventory', tag: 'Deposits', spec: '4.2', errors: [...MERCHANT, ...WITH_BODY, 503], request: X.inventoryRequest, response: { 200: X.inventoryResponse } },
  [`post ${m}/create-deposit`]: { id: 'createDeposit', tag: 'Deposits', spec: '4.3', errors: [...MERCHANT, 409, ...WITH_BODY, 503], request: X.createDepositRequest, response: { 200: X.depositCreatedResponse } },
  [`post ${m}/get-prices`]: { id: 'getPrices', tag: 'Deposits by hash name', spec: '4.4', errors: [...MERCHANT, ...WITH_BODY, 503], request: X.getPricesRequest, response: { 200: X.getPricesResponse } },
  [`post ${m}/create-deposit-by-hash-name`]: { id: 'createDepositByHashName', tag: 'Deposits by hash name', spec: '4.5', errors: [...MERCHANT, 404, 409, ...WITH_BODY, 503], request: X.createDepositByHashNameRequest, response: { 200: X.depositCreatedResponse } },
  [`post ${m}/deposit-preview`]: { id: 'previewDeposit', tag: 'Deposits', spec: '4.6', errors: [...MERCHANT, ...WITH_BODY, 503], request: X.depositPreviewRequest, response: { 200: X.depositPreviewResponse } },
  [`get ${m}/deposit/status`]: { id: 'getDepositStatus', tag: 'Deposits', spec: '4.7', errors: [...MERCHANT, 404], response: { 200: X.depositStatusResponse } },
  [`post ${m}/purchase`]: { id: 'createPurchase', tag: 'Purchases', spec: '4.8', errors: [...MERCHANT, 409, ...WITH_BODY], request: X.purchaseRequest, response: { 200: X.purchaseResponse } },
  [`get ${m}/purchase/status`]: { id: 'getPurchaseStatus', tag: 'Purchases', spec: '4.9', errors: [...MERCHANT, 404], response: { 200: X.purchaseStatusResponse } },
  [`get ${m}/purchase`]: { id: 'listPurchases', tag: 'Purchases', spec: '4.10', errors: MERCHANT, response: { 200: X.purchaseHistoryResponse } },
  [`get ${m}/purchase/available`]: { id: 'getCatalogue', tag: 'Catalogue', spec: '4.11', errors: [304, ...MERCHANT, 503], response: { 200: X.cataloguePageResponse } },
  [`get ${m}/purchase/search`]: { id: 'searchCatalogue', tag: 'Catalogue', spec: '4.12', errors: [...MERCHANT, 503], response: { 200: X.searchResponse } },
  [`get ${m}/purchase/events`]: { id: 'getCatalogueEvents', tag: 'Catalogue', errors: MERCHANT, response: { 200: X.eventsResponse } },
  [`get ${m}/events`]: { id: 'listEvents', tag: 'Events', errors: MERCHANT, response: { 200: X.eventListResponse } },
  [`get ${m}/events/{id}`]: { id: 'getEvent', tag: 'Events', errors: [...MERCHANT, 404], response: { 200: X.eventResponse } },
  [`get ${m}/balance`]: { id: 'getBalance', tag: 'Balance', spec: '4.13', errors: MERCHANT, response: { 200: X.balanceResponse } },
  [`post ${m}/sandbox/deposit/{id}/{action}`]: { id: 'sandboxDepositAction', tag: 'Sandbox', errors: [...MERCHANT, 404, 409, ...WITH_BODY], request: { hold: false }, requests: { revert: { by: 'user' } }, response: { 200: X.sandboxDepositResponse } },
  [`post ${m}/sandbox/purchase/{id}/{action}`]: { id: 'sandboxPurchaseAction', tag: 'Sandbox', errors: [...MERCHANT, 404, 409, ...WITH_BODY], request: { hold: false }, requests: { revert: { by: 'gateway' } }, response: { 200: X.sandboxPurchaseResponse } },

  [`get ${h}`]: { id: 'getHostedIntent', tag: 'Hosted page', errors: HOSTED, response: { 200: X.hostedStateResponse } },
  [`get ${h}/status`]: { id: 'getHostedStatus', tag: 'Hosted page', errors: HOSTED, response: { 200: X.hostedStateResponse } },
  [`post ${h}/inventory`]: { id: 'getHostedInventory', tag: 'Hosted page', errors: [...HOSTED, 409, ...WITH_BODY], request: X.hostedInventoryRequest, response: { 200: X.inventoryResponse } },
  [`post ${h}/deposit`]: { id: 'createHostedDeposit', tag: 'Hosted page', errors: [...HOSTED, 409, ...WITH_BODY], request: X.hostedDepositRequest, response: { 200: X.hostedStateResponse } },

  [`post ${a}/merchants`]: { id: 'createMerchant', tag: 'Operator: merchants', errors: [...ADMIN, ...WITH_BODY], request: X.createMerchantRequest, response: { 201: X.createdMerchantResponse } },
  [`get ${a}/merchants`]: { id: 'listMerchants', tag: 'Operator: merchants', errors: ADMIN, response: { 200: X.merchantListResponse } },
  [`get ${a}/merchants/{id}`]: { id: 'getMerchant', tag: 'Operator: merchants', errors: [...ADMIN, 404], response: { 200: X.merchantResponse } },
  [`patch ${a}/merchants/{id}`]: { id: 'updateMerchant', tag: 'Operator: merchants', errors: [...ADMIN, 404, ...WITH_BODY], request: X.updateMerchantRequest, response: { 200: X.merchantUpdatedResponse } },
  [`post ${a}/merchants/{id}/rotate-key`]: { id: 'rotateMerchantApiKey', tag: 'Operator: merchants', errors: [...ADMIN, 404, ...WITH_BODY], response: { 200: X.rotatedKeyResponse } },
  [`post ${a}/merchants/{id}/rotate-webhook-secret`]: { id: 'rotateMerchantWebhookSecret', tag: 'Operator: merchants', errors: [...ADMIN, 404, ...WITH_BODY], response: { 200: X.rotatedSecretResponse } },
  [`post ${a}/merchants/{id}/top-ups`]: { id: 'createTopUp', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404, ...WITH_BODY], request: X.topUpRequest, response: { 201: X.topUpResponse, 200: X.topUpDuplicateResponse } },
  [`post ${a}/merchants/{id}/withdrawals`]: { id: 'createWithdrawal', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404, ...WITH_BODY], request: X.withdrawalRequest, response: { 201: X.withdrawalResponse } },
  [`get ${a}/merchants/{id}/withdrawals`]: { id: 'listWithdrawals', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404], response: { 200: X.withdrawalListResponse } },
  [`post ${a}/withdrawals/{id}/complete`]: { id: 'completeWithdrawal', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404, 409, ...WITH_BODY], response: { 200: X.withdrawalDone('completed') } },
  [`post ${a}/withdrawals/{id}/fail`]: { id: 'failWithdrawal', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404, 409, ...WITH_BODY], response: { 200: X.withdrawalDone('failed') } },
  [`post ${a}/withdrawals/{id}/cancel`]: { id: 'cancelWithdrawal', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404, 409, ...WITH_BODY], response: { 200: X.withdrawalDone('canceled') } },
  [`get ${a}/merchants/{id}/ledger`]: { id: 'listLedgerEntries', tag: 'Operator: balance and ledger', errors: [...ADMIN, 404], response: { 200: X.ledgerResponse } },
  [`get ${a}/ledger/verify`]: { id: 'verifyLedger', tag: 'Operator: balance and ledger', errors: ADMIN, response: { 200: X.ledgerVerifyResponse } },
  [`get ${a}/merchants/{id}/webhook-deliveries`]: { id: 'listWebhookDeliveries', tag: 'Operator: webhooks', errors: [...ADMIN, 404], response: { 200: X.deliveriesResponse } },
  [`post ${a}/merchants/{id}/invitations`]: { id: 'inviteMerchantUser', tag: 'Operator: dashboard accounts', errors: [...ADMIN, 404, ...WITH_BODY], request: A.inviteUserRequest, response: { 201: A.invitationResponse } },
  [`post ${a}/operators/invitations`]: { id: 'inviteOperator', tag: 'Operator: dashboard accounts', errors: [...ADMIN, ...WITH_BODY], request: A.inviteOperatorRequest, response: { 201: A.operatorInvitationResponse } },
  [`get ${a}/merchants/{id}/users`]: { id: 'listMerchantUsers', tag: 'Operator: dashboard accounts', errors: [...ADMIN, 404], response: { 200: A.usersResponse } },
  [`get ${a}/audit`]: { id: 'listAuditLog', tag: 'Operator: dashboard accounts', errors: ADMIN, response: { 200: A.auditResponse } },
  [`post ${a}/webhook-deliveries/{id}/redeliver`]: { id: 'redeliverWebhook', tag: 'Operator: webhooks', errors: [...ADMIN, 404, ...WITH_BODY], response: { 202: X.redeliverResponse } },
  [`post ${a}/bots`]: { id: 'createBot', tag: 'Operator: bots', errors: [...ADMIN, ...WITH_BODY], request: X.createBotRequest, response: { 201: X.botAddedResponse } },
  [`get ${a}/bots`]: { id: 'listBots', tag: 'Operator: bots', errors: ADMIN, response: { 200: X.botListResponse } },
  [`get ${a}/bots/{id}`]: { id: 'getBot', tag: 'Operator: bots', errors: [...ADMIN, 404], response: { 200: X.botResponse } },
  [`patch ${a}/bots/{id}`]: { id: 'updateBot', tag: 'Operator: bots', errors: [...ADMIN, 404, ...WITH_BODY], request: X.updateBotRequest, response: { 200: X.botUpdatedResponse } },
  [`put ${a}/bots/{id}/web-session`]: { id: 'setBotWebSession', tag: 'Operator: bots', errors: [...ADMIN, 404, ...WITH_BODY], request: X.webSessionRequest, response: { 200: X.webSessionStoredResponse } },
  [`post ${a}/bots/{id}/disable`]: { id: 'disableBot', tag: 'Operator: bots', errors: [...ADMIN, 404, ...WITH_BODY], response: { 200: X.botDisabledResponse } },
  [`delete ${a}/bots/{id}`]: { id: 'removeBot', tag: 'Operator: bots', errors: [...ADMIN, 404], response: { 200: X.botRemovedResponse } },
  [`get ${a}/reconciliation`]: { id: 'getReconciliation', tag: 'Operator: bots', errors: [...ADMIN, 404], response: { 200: X.reconcileResponse } },
  [`post ${a}/reconciliation/run`]: { id: 'runReconciliation', tag: 'Operator: bots', errors: [...ADMIN, ...WITH_BODY], response: { 200: X.reconcileResponse } },
  [`post ${a}/bots/sync`]: { id: 'syncBotStock', tag: 'Operator: bots', errors: [...ADMIN, ...WITH_BODY], request: {}, response: { 200: X.botSyncResponse } },
  [`post ${a}/bots/{id}/check`]: { id: 'checkBot', tag: 'Operator: bots', errors: [...ADMIN, 404, ...WITH_BODY], response: { 200: X.botCheckResponse } },
  [`get ${a}/prices/flagged`]: { id: 'listFlaggedPrices', tag: 'Operator: prices', errors: ADMIN, response: { 200: P.flaggedResponse } },
  [`get ${a}/prices/item`]: { id: 'getPriceBasis', tag: 'Operator: prices', errors: [...ADMIN, 404], response: { 200: P.basisResponse } },
  [`get ${a}/prices/bases/{id}`]: { id: 'getStoredPriceBasis', tag: 'Operator: prices', errors: [...ADMIN, 404], response: { 200: P.basisResponse } },
  [`get ${a}/prices/sources`]: { id: 'listPriceSources', tag: 'Operator: prices', errors: ADMIN, response: { 200: P.sourcesResponse } },
  [`get ${a}/prices/refresh`]: { id: 'getPriceRefresh', tag: 'Operator: prices', errors: ADMIN, response: { 200: P.refreshResponse } },
  [`post ${a}/prices/refresh`]: { id: 'startPriceRefresh', tag: 'Operator: prices', errors: ADMIN, response: { 202: P.refreshStartedResponse } },
  [`get ${a}/prices/overrides`]: { id: 'listPriceOverrides', tag: 'Operator: prices', errors: ADMIN, response: { 200: P.overridesResponse } },
  [`put ${a}/prices/overrides`]: { id: 'setPriceOverride', tag: 'Operator: prices', errors: [...ADMIN, ...WITH_BODY], request: P.overrideRequest, response: { 200: P.overrideResponse } },
  [`delete ${a}/prices/overrides`]: { id: 'removePriceOverride', tag: 'Operator: prices', errors: [...ADMIN, 404], response: { 200: P.removedResponse } },
  [`post ${a}/prices/confirm`]: { id: 'confirmPriceJump', tag: 'Operator: prices', errors: [...ADMIN, ...WITH_BODY], request: P.confirmRequest, response: { 200: P.confirmResponse } },
};
