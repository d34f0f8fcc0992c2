"""Skin Trading Gateway SDK for Python (standard library only, Python 3.8+).

    from skin_gateway import SkinGateway
    gw = SkinGateway("https://gateway.example", api_key)
    inv = gw.get_inventory(game="csgo", partner=12345678, token="abcdefgh")

The operation table (operations.py) is generated from the gateway's /openapi.json; the gateway's
test suite regenerates it from the live document and fails when it differs.
"""
import base64
import hashlib
import hmac
import json
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

from .operations import INT64_FIELDS, OPERATIONS

__all__ = [
    "SkinGateway", "GatewayError", "ValidationError", "AuthenticationError", "ForbiddenError",
    "NotFoundError", "ConflictError", "ServiceUnavailableError", "ConnectionError_",
    "WebhookVerificationError", "verify_webhook", "verify_sign", "verify_standard_signature",
    "webhook_key", "OPERATIONS", "INT64_FIELDS", "method_name",
]


# ---- errors -------------------------------------------------------------------------------------

class GatewayError(Exception):
    """A non-2xx answer: status, message, data (the {field, code, message} list on 400)."""

    def __init__(self, status, message, data=None, after_retry=False, retry_after=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.data = data
        self.after_retry = after_retry
        self.retry_after = retry_after

    @property
    def errors(self):
        """The validation list: dicts with field, code, message (empty when none)."""
        if isinstance(self.data, list):
            return [e for e in self.data if isinstance(e, dict) and "code" in e]
        return []

    @property
    def code(self):
        """The domain code: the first entry with a code, else data.fail_reason, else the message."""
        if self.errors:
            return self.errors[0]["code"]
        if isinstance(self.data, dict) and isinstance(self.data.get("fail_reason"), str):
            return self.data["fail_reason"]
        return self.message


class ValidationError(GatewayError):
    pass


class AuthenticationError(GatewayError):
    pass


class ForbiddenError(GatewayError):
    pass


class NotFoundError(GatewayError):
    pass


class ConflictError(GatewayError):
    """409: the merchant_tx_id is already used (adopt the existing record)."""


class ServiceUnavailableError(GatewayError):
    """429 / 503: retry after retry_after seconds."""


class ConnectionError_(Exception):
    """No answer at all after the last retry."""


_BY_STATUS = {400: ValidationError, 401: AuthenticationError, 403: ForbiddenError, 404: NotFoundError,
              409: ConflictError, 429: ServiceUnavailableError, 503: ServiceUnavailableError}
_RETRYABLE = {429, 500, 502, 503, 504}


def method_name(operation_id):
    """createDepositByHashName -> create_deposit_by_hash_name."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()


class CataloguePage:
    def __init__(self, modified, etag, page=None):
        self.modified = modified
        self.etag = etag
        self.page = page

    def __repr__(self):
        return "CataloguePage(modified=%r, etag=%r)" % (self.modified, self.etag)


# ---- client -------------------------------------------------------------------------------------

class SkinGateway:
    """The merchant API. Methods answer the envelope's `data` (dicts; ints of any size exact)."""

    def __init__(self, base_url, api_key, max_retries=2, retry_delay=0.5, timeout=30.0, opener=None):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.retry_delay = retry_delay
        self.timeout = timeout
        # an urllib opener; tests pass one that loses answers
        self._open = opener or urllib.request.urlopen

    def raw(self, operation, query=None, body=None, path_params=None, headers=None):
        """One exchange with retries: (status, headers, text, after_retry)."""
        method, path = OPERATIONS[operation]
        path = re.sub(r"\{(\w+)\}", lambda m: urllib.parse.quote(str((path_params or {})[m.group(1)]), safe=""), path)
        url = self.base_url + "/api/v1/merchant" + path
        if query:
            pairs = []
            for k, v in query.items():
                if v is None:
                    continue
                for one in (v if isinstance(v, (list, tuple)) else [v]):
                    pairs.append((k, str(one).lower() if isinstance(one, bool) else str(one)))
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        data = None if body is None else json.dumps(body).encode("utf-8")
        hdrs = {"x-api-key": self.api_key, "accept": "application/json"}
        if data is not None:
            hdrs["content-type"] = "application/json"
        hdrs.update(headers or {})
        attempt = 0
        while True:
            req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
            try:
                try:
                    with self._open(req, timeout=self.timeout) as res:
                        status, rh, text = res.status, res.headers, res.read().decode("utf-8")
                except urllib.error.HTTPError as err:
                    status, rh, text = err.code, err.headers, err.read().decode("utf-8")
            except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as err:
                if attempt >= self.max_retries:
                    raise ConnectionError_("no answer from %s %s: %s" % (method, path, err))
                time.sleep(self.retry_delay * 2 ** attempt)
                attempt += 1
                continue
            if status not in _RETRYABLE or attempt >= self.max_retries:
                return status, rh, text, attempt > 0
            retry_after = rh.get("retry-after") if rh else None
            time.sleep(int(retry_after) if retry_after and retry_after.isdigit() else self.retry_delay * 2 ** attempt)
            attempt += 1

    def call(self, operation, query=None, body=None, path_params=None, headers=None):
        return self._data(*self.raw(operation, query, body, path_params, headers))

    @staticmethod
    def _data(status, headers, text, after_retry):
        try:
            env = json.loads(text) if text else None
        except ValueError:
            env = None
        if 200 <= status < 300 and not (isinstance(env, dict) and env.get("success") is False):
            return env.get("data") if isinstance(env, dict) else None
        env = env if isinstance(env, dict) else {}
        ra = headers.get("retry-after") if headers else None
        cls = _BY_STATUS.get(status, GatewayError)
        raise cls(status, env.get("message") or "HTTP %d" % status, env.get("data"), after_retry,
                  int(ra) if ra and ra.isdigit() else None)

    # deposits (spec 4.1-4.7)
    def create_intent(self, **body):
        return self.call("createIntent", body=body)

    def get_inventory(self, **body):
        return self.call("getInventory", body=body)

    def create_deposit(self, **body):
        """Creates the deposit; when a retried request meets 409 (the lost first attempt created it), answers that deposit."""
        try:
            return self.call("createDeposit", body=body)
        except ConflictError as err:
            if err.after_retry:
                return self.get_deposit_status(merchant_tx_id=body["merchant_tx_id"])
            raise

    def get_prices(self, **body):
        return self.call("getPrices", body=body)

    def create_deposit_by_hash_name(self, **body):
        return self.call("createDepositByHashName", body=body)

    def preview_deposit(self, **body):
        return self.call("previewDeposit", body=body)

    def get_deposit_status(self, **query):
        return self.call("getDepositStatus", query=query)

    # purchases (spec 4.8-4.10)
    def create_purchase(self, **body):
        """Idempotent on merchant_tx_id: a repeat answers the stored purchase."""
        return self.call("createPurchase", body=body)

    def get_purchase_status(self, **query):
        return self.call("getPurchaseStatus", query=query)

    def list_purchases(self, **query):
        return self.call("listPurchases", query=query)

    # catalogue (spec 4.11, 4.12)
    def get_catalogue(self, etag=None, **query):
        """One page (query page=1..16); with the ETag of your copy, CataloguePage.modified is False (304) while current."""
        status, headers, text, after_retry = self.raw("getCatalogue", query=query, headers={"if-none-match": etag} if etag else None)
        if status == 304:
            return CataloguePage(False, headers.get("etag") or etag)
        return CataloguePage(True, headers.get("etag"), self._data(status, headers, text, after_retry))

    def walk_catalogue(self, etags=None, **query):
        """Pages 1 to 16 of a game, each once: yields (number, CataloguePage)."""
        for n in range(1, 17):
            yield n, self.get_catalogue(etag=(etags or {}).get(n), page=n, **query)

    def download_catalogue(self, **query):
        """The whole catalogue of a game in one streamed answer (a cut-off body raises)."""
        return self.call("getCatalogue", query=query)

    def search_catalogue(self, **query):
        return self.call("searchCatalogue", query=query)

    def get_catalogue_events(self, **query):
        return self.call("getCatalogueEvents", query=query)

    # balance, events
    def get_balance(self):
        return self.call("getBalance")

    def list_events(self, **query):
        """Your webhook events, newest first (beyond the spec)."""
        return self.call("listEvents", query=query)

    def get_event(self, event_id):
        return self.call("getEvent", path_params={"id": event_id})

    # sandbox helpers
    def sandbox_deposit_action(self, deposit_id, action, **body):
        return self.call("sandboxDepositAction", body=body, path_params={"id": deposit_id, "action": action})

    def sandbox_purchase_action(self, purchase_id, action, **body):
        return self.call("sandboxPurchaseAction", body=body, path_params={"id": purchase_id, "action": action})


# ---- webhooks -----------------------------------------------------------------------------------

class WebhookVerificationError(Exception):
    pass


def webhook_key(secret):
    """The HMAC key: the bytes after whsec_, in the base64url or the standard base64 alphabet."""
    if secret.startswith("whsec_"):
        encoded = secret[len("whsec_"):]
        if re.fullmatch(r"[A-Za-z0-9+/_-]+={0,2}", encoded):
            std = encoded.replace("-", "+").replace("_", "/")
            try:
                key = base64.b64decode(std + "=" * (-len(std) % 4))
            except ValueError:
                key = b""
            if key:
                return key
    return secret.encode("utf-8")


def verify_sign(body, secret):
    """The spec's sign: base64(sha256(str(trade_id or purchase_id) + secret))."""
    ident = body.get("trade_id", body.get("purchase_id"))
    sign = body.get("sign")
    if not isinstance(sign, str) or ident is None:
        return False
    expected = base64.b64encode(hashlib.sha256((str(ident) + secret).encode("utf-8")).digest()).decode()
    return hmac.compare_digest(sign.encode(), expected.encode())


def _header(headers, name):
    for k, v in headers.items():
        if k.lower() == name:
            return v
    return None


def verify_standard_signature(headers, raw_body, secret, tolerance=300, now=None):
    """Standard Webhooks: webhook-signature = v1,base64(HMAC-SHA256(key, "<id>.<timestamp>.<raw body>"))."""
    wid, ts, sig = _header(headers, "webhook-id"), _header(headers, "webhook-timestamp"), _header(headers, "webhook-signature")
    if not wid or not ts or not sig or not str(ts).isdigit():
        return False
    if abs((int(time.time()) if now is None else now) - int(ts)) > tolerance:
        return False
    raw = raw_body.decode("utf-8") if isinstance(raw_body, bytes) else raw_body
    expected = hmac.new(webhook_key(secret), ("%s.%s.%s" % (wid, ts, raw)).encode("utf-8"), hashlib.sha256).digest()
    for part in str(sig).split(" "):
        version, _, value = part.partition(",")
        try:
            got = base64.b64decode(value)
        except ValueError:
            continue
        if version == "v1" and hmac.compare_digest(got, expected):
            return True
    return False


def verify_webhook(raw_body, headers, secret, tolerance=300, now=None):
    """Checks both signatures of a webhook request; answers the body with "kind" (deposit / purchase)."""
    if not verify_standard_signature(headers, raw_body, secret, tolerance, now):
        raise WebhookVerificationError("webhook-signature does not match (or the timestamp is too old)")
    try:
        body = json.loads(raw_body)
    except ValueError:
        raise WebhookVerificationError("body is not JSON")
    if not isinstance(body, dict) or not verify_sign(body, secret):
        raise WebhookVerificationError("sign does not match")
    body["kind"] = "purchase" if "purchase_id" in body else "deposit"
    return body
