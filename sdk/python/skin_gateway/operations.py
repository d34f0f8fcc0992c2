# GENERATED from the gateway's /openapi.json by sdk/typescript/scripts/generate.ts: do not edit by hand.
# The merchant operations: operationId -> (HTTP method, path under /api/v1/merchant).

OPERATIONS = {
    "createDeposit": ("POST", "/create-deposit"),
    "createDepositByHashName": ("POST", "/create-deposit-by-hash-name"),
    "createIntent": ("POST", "/create-intent"),
    "createPurchase": ("POST", "/purchase"),
    "getBalance": ("GET", "/balance"),
    "getCatalogue": ("GET", "/purchase/available"),
    "getCatalogueEvents": ("GET", "/purchase/events"),
    "getDepositStatus": ("GET", "/deposit/status"),
    "getEvent": ("GET", "/events/{id}"),
    "getInventory": ("POST", "/inventory"),
    "getPrices": ("POST", "/get-prices"),
    "getPurchaseStatus": ("GET", "/purchase/status"),
    "listEvents": ("GET", "/events"),
    "listPurchases": ("GET", "/purchase"),
    "previewDeposit": ("POST", "/deposit-preview"),
    "sandboxDepositAction": ("POST", "/sandbox/deposit/{id}/{action}"),
    "sandboxPurchaseAction": ("POST", "/sandbox/purchase/{id}/{action}"),
    "searchCatalogue": ("GET", "/purchase/search"),
}

# 64-bit integer fields (Python ints hold them exactly).
INT64_FIELDS = ("bot_platform_id",)
