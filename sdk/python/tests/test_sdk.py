"""Unit tests of the Python SDK (no gateway needed): python3 -m unittest discover -s sdk/python/tests"""
import base64
import hashlib
import hmac
import http.server
import json
import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import skin_gateway as sg  # noqa: E402

SECRET_BYTES = bytes([251, 255, 190, 1, 2, 3, 250, 254, 253, 0, 7, 8] * 2 + [9] * 8)
SECRET = "whsec_" + base64.urlsafe_b64encode(SECRET_BYTES).decode().rstrip("=")


def signed(body, secret_bytes=SECRET_BYTES, wid="evt_1", ts=1_800_000_000):
    raw = json.dumps(body)
    mac = base64.b64encode(hmac.new(secret_bytes, ("%s.%d.%s" % (wid, ts, raw)).encode(), hashlib.sha256).digest()).decode()
    return raw, {"Webhook-Id": wid, "Webhook-Timestamp": str(ts), "Webhook-Signature": "v1," + mac}


def spec_sign(ident, secret=SECRET):
    return base64.b64encode(hashlib.sha256((str(ident) + secret).encode()).digest()).decode()


class OperationsTest(unittest.TestCase):
    def test_every_operation_has_a_method(self):
        self.assertGreaterEqual(len(sg.OPERATIONS), 18)
        for op in sg.OPERATIONS:
            self.assertTrue(callable(getattr(sg.SkinGateway, sg.method_name(op), None)), op)

    def test_method_names(self):
        self.assertEqual(sg.method_name("createDepositByHashName"), "create_deposit_by_hash_name")
        self.assertEqual(sg.method_name("getBalance"), "get_balance")


class WebhookTest(unittest.TestCase):
    body = {"status": "completed", "trade_id": 42, "merchant_tx_id": "order-1", "amount": 12.34}

    def test_both_signatures_verified(self):
        raw, headers = signed(dict(self.body, sign=spec_sign(42)))
        got = sg.verify_webhook(raw, headers, SECRET, now=1_800_000_000)
        self.assertEqual(got["kind"], "deposit")
        self.assertEqual(got["trade_id"], 42)

    def test_standard_base64_secret_gives_the_same_key(self):
        std = "whsec_" + base64.b64encode(SECRET_BYTES).decode()
        self.assertEqual(sg.webhook_key(std), SECRET_BYTES)
        self.assertEqual(sg.webhook_key(SECRET), SECRET_BYTES)

    def test_tampered_body_wrong_secret_old_timestamp_refused(self):
        raw, headers = signed(dict(self.body, sign=spec_sign(42)))
        with self.assertRaises(sg.WebhookVerificationError):
            sg.verify_webhook(raw.replace("completed", "completeD"), headers, SECRET, now=1_800_000_000)
        with self.assertRaises(sg.WebhookVerificationError):
            sg.verify_webhook(raw, headers, SECRET + "x", now=1_800_000_000)
        with self.assertRaises(sg.WebhookVerificationError):
            sg.verify_webhook(raw, headers, SECRET, now=1_800_000_301)
        self.assertEqual(sg.verify_webhook(raw, headers, SECRET, now=1_800_000_300)["kind"], "deposit")

    def test_sign_field_checked(self):
        raw, headers = signed(dict(self.body, sign=spec_sign(43)))
        with self.assertRaises(sg.WebhookVerificationError):
            sg.verify_webhook(raw, headers, SECRET, now=1_800_000_000)

    def test_purchase_kind(self):
        raw, headers = signed({"status": "failed", "purchase_id": 7, "sign": spec_sign(7)})
        self.assertEqual(sg.verify_webhook(raw, headers, SECRET, now=1_800_000_000)["kind"], "purchase")


class ErrorTest(unittest.TestCase):
    def test_code_from_list_then_fail_reason_then_message(self):
        e = sg.ValidationError(400, "validation error", [{"field": "X.partner", "code": "trade_link_invalid", "message": "m"}])
        self.assertEqual(e.code, "trade_link_invalid")
        self.assertEqual(e.errors[0]["field"], "X.partner")
        self.assertEqual(sg.GatewayError(400, "m", {"fail_reason": "hold"}).code, "hold")
        self.assertEqual(sg.GatewayError(500, "internal error").code, "internal error")


class _Handler(http.server.BaseHTTPRequestHandler):
    answers = []
    seen = []

    def do_GET(self):
        _Handler.seen.append(self.path)
        status, body, headers = _Handler.answers.pop(0)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


class RetryTest(unittest.TestCase):
    def setUp(self):
        self.server = http.server.HTTPServer(("127.0.0.1", 0), _Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.gw = sg.SkinGateway("http://127.0.0.1:%d" % self.server.server_port, "k", retry_delay=0.01)
        _Handler.seen = []

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()

    def test_503_then_answer_is_retried(self):
        _Handler.answers = [(503, '{"success":false,"message":"busy"}', {"Retry-After": "0"}),
                            (200, '{"success":true,"message":"ok","data":{"total":1,"hold":0,"available":1,"big":76561198000000103}}', {})]
        data = self.gw.get_balance()
        self.assertEqual(data["big"], 76561198000000103)  # exact: Python ints are unbounded
        self.assertEqual(len(_Handler.seen), 2)

    def test_retries_run_out_into_a_typed_error(self):
        _Handler.answers = [(503, '{"success":false,"message":"busy"}', {"Retry-After": "0"})] * 3
        with self.assertRaises(sg.ServiceUnavailableError) as ctx:
            self.gw.get_balance()
        self.assertTrue(ctx.exception.after_retry)
        self.assertEqual(ctx.exception.retry_after, 0)
        self.assertEqual(len(_Handler.seen), 3)

    def test_400_is_not_retried(self):
        _Handler.answers = [(400, '{"success":false,"message":"validation error","data":[{"field":"f","code":"required","message":"m"}]}', {})]
        with self.assertRaises(sg.ValidationError) as ctx:
            self.gw.get_balance()
        self.assertEqual(ctx.exception.code, "required")
        self.assertEqual(len(_Handler.seen), 1)


if __name__ == "__main__":
    unittest.main()
