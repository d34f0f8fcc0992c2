"""The full sandbox flow against a live gateway (run by the gateway's test/sdk/python-sdk.test.ts):
GATEWAY_URL, API_KEY, WEBHOOK_SECRET, RECEIVER_PORT (the merchant's webhook_url listens there).
Prints one JSON line of what it saw; exits non-zero on any failed check."""
import http.server
import json
import os
import random
import sys
import threading
import time
import urllib.error

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import skin_gateway as sg  # noqa: E402

received = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        received.append((dict(self.headers.items()), raw))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["RECEIVER_PORT"])), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    secret = os.environ["WEBHOOK_SECRET"]
    gw = sg.SkinGateway(os.environ["GATEWAY_URL"], os.environ["API_KEY"], retry_delay=0.01)
    out = {}
    token = "abcdefgh"
    run = "%d%04d" % (int(time.time()), random.randint(0, 9999))

    # inventory -> deposit -> accept -> webhook verified -> status
    partner = 20_000_000 + random.randint(0, 9_000_000)
    inv = gw.get_inventory(game="csgo", partner=partner, token=token)
    check(len(inv["items"]) > 1, "inventory items")
    dep = gw.create_deposit(merchant_tx_id="py-" + run, game="csgo", partner=partner, token=token, asset_ids=[inv["items"][0]["id"]])
    check(dep["status"] == "active", "deposit active")
    out["deposit_id"] = dep["id"]
    out["bot_platform_id"] = str(dep["bot_platform_id"])
    gw.sandbox_deposit_action(dep["id"], "accept", hold=False)
    deadline = time.time() + 60
    hook = None
    while time.time() < deadline and hook is None:
        for headers, raw in list(received):
            body = json.loads(raw)
            if body.get("trade_id") == dep["id"] and body.get("status") == "completed":
                hook = (headers, raw)
        time.sleep(0.05)
    check(hook is not None, "completed webhook received")
    verified = sg.verify_webhook(hook[1], hook[0], secret)
    check(verified["kind"] == "deposit" and verified["trade_id"] == dep["id"], "webhook verified")
    try:
        sg.verify_webhook(hook[1].replace(b"completed", b"completeD"), hook[0], secret)
        check(False, "tampered webhook refused")
    except sg.WebhookVerificationError:
        pass
    out["webhook_id"] = hook[0].get("webhook-id") or hook[0].get("Webhook-Id")
    check(gw.get_deposit_status(id=dep["id"])["status"] == "completed", "deposit completed")
    events = gw.list_events(deposit_id=dep["id"])["events"]
    check(out["webhook_id"] in [e["id"] for e in events], "event listed")

    # hash-name flow
    partner2 = partner + 1
    inv2 = gw.get_inventory(game="csgo", partner=partner2, token=token)
    # plain names only: a phased item is quoted by "<name> - <phase>"
    picked = [i for i in inv2["items"] if not i.get("phase") and i.get("tradable", True)][:2]
    check(len(picked) == 2, "two plain items")
    draft = gw.get_prices(game="csgo", marketHashNames=[i["name"] for i in picked])
    hd = gw.create_deposit_by_hash_name(id=draft["id"], merchant_tx_id="py-h-" + run, game="csgo", partner=partner2, token=token,
                                        items=[{"asset_id": i["id"], "name": i["name"]} for i in picked])
    check(hd["status"] == "active", "hash-name deposit active")
    out["hash_name_deposit_id"] = hd["id"]

    # catalogue pages with ETags, the whole catalogue; purchase -> status -> history
    first = gw.get_catalogue(game="csgo", full="true", page=1)
    check(first.modified and first.etag, "page 1 with an ETag")
    again = gw.get_catalogue(etag=first.etag, game="csgo", full="true", page=1)
    check(not again.modified, "304 while current")
    walked = sum(len(p.page["items"]) for _, p in gw.walk_catalogue(game="csgo", full="true"))
    whole = gw.download_catalogue(game="csgo", full="true")
    check(len(whole["items"]) == walked, "whole catalogue = the 16 pages")
    out["catalogue_items"] = walked
    listing = first.page["items"][0]
    p = gw.create_purchase(partner=12345678, token=token, game="csgo", asset_id=listing["id"], merchant_tx_id="py-p-" + run)
    check(p["status"] in ("pending", "active"), "purchase created")
    check(gw.get_purchase_status(merchant_tx_id="py-p-" + run)["id"] == p["id"], "purchase status")
    check(p["id"] in [x["id"] for x in gw.list_purchases(search="py-p-" + run)["data"]], "purchase history")
    same = gw.create_purchase(partner=12345678, token=token, game="csgo", asset_id=listing["id"], merchant_tx_id="py-p-" + run)
    check(same["id"] == p["id"], "idempotent purchase")
    out["purchase_id"] = p["id"]

    # a 409 and a 400 as typed errors
    try:
        gw.create_deposit(merchant_tx_id="py-" + run, game="csgo", partner=partner, token=token, asset_ids=[inv["items"][1]["id"]])
        check(False, "409 raised")
    except sg.ConflictError as err:
        out["conflict"] = {"status": err.status, "message": err.message}
    try:
        gw.get_inventory(game="csgo", partner=90000001, token=token)
        check(False, "400 raised")
    except sg.ValidationError as err:
        out["validation"] = {"status": err.status, "code": err.code, "errors": err.errors}

    # a lost answer is retried with the same body: one purchase results
    lost = {"n": 0}

    def lossy(req, timeout):
        res = sg.urllib.request.urlopen(req, timeout=timeout)
        if lost["n"] == 0:
            lost["n"] += 1
            res.read()
            res.close()
            raise urllib.error.URLError("connection reset (simulated)")
        return res

    flaky = sg.SkinGateway(os.environ["GATEWAY_URL"], os.environ["API_KEY"], retry_delay=0.01, opener=lossy)
    second = gw.get_catalogue(game="csgo", full="true", page=2).page["items"][0]
    rp = flaky.create_purchase(partner=12345678, token=token, game="csgo", asset_id=second["id"], merchant_tx_id="py-r-" + run)
    out["retried_purchase"] = {"id": rp["id"], "merchant_tx_id": "py-r-" + run}

    server.shutdown()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
