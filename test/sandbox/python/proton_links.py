"""Proton-C (Debian's python3-qpid-proton, the C sibling of the Proton-J engine under Java's Service Bus SDK) against
the sandbox's AMQPS listener, trusting the sandbox's CA: a CBS token put as the JavaScript SDK puts it, then a send
link and a receive link in every settle mode. Prints one JSON object: check name -> {"ok": bool, "detail": str}.
"""
import base64
import hashlib
import hmac
import json
import os
import time
import traceback
import urllib.parse

from proton import Link, Message, SSLDomain, Timeout
from proton.reactor import LinkOption
from proton.utils import BlockingConnection, LinkDetached

settings = json.loads(os.environ["CHECK_SETTINGS"])
SEND_MODES = {"unsettled": Link.SND_UNSETTLED, "settled": Link.SND_SETTLED, "mixed": Link.SND_MIXED}
RECEIVE_MODES = {"first": Link.RCV_FIRST, "second": Link.RCV_SECOND}


class Modes(LinkOption):
    def __init__(self, snd, rcv):
        self.snd, self.rcv = snd, rcv

    def apply(self, link):
        link.snd_settle_mode = self.snd
        link.rcv_settle_mode = self.rcv


def sas_token(resource, key_name, key):
    expiry = int(time.time()) + 600
    encoded = urllib.parse.quote_plus(resource)
    signature = base64.b64encode(hmac.new(key.encode(), f"{encoded}\n{expiry}".encode(), hashlib.sha256).digest())
    return (f"SharedAccessSignature sr={encoded}&sig={urllib.parse.quote_plus(signature)}"
            f"&se={expiry}&skn={key_name}")


def connect():
    domain = SSLDomain(SSLDomain.MODE_CLIENT)
    domain.set_trusted_ca_db(settings["caFile"])
    domain.set_peer_authentication(SSLDomain.VERIFY_PEER_NAME)
    connection = BlockingConnection(f"amqps://localhost:{settings['port']}", ssl_domain=domain,
                                    allowed_mechs="ANONYMOUS", timeout=15)
    replies = connection.create_receiver("$cbs", name="proton-cbs-reply", credit=1)
    requests = connection.create_sender("$cbs")
    audience = "sb://localhost/"
    requests.send(Message(id="put-token-1", reply_to="proton-cbs-reply", body=sas_token(audience, "RootManageSharedAccessKey", "SAS_KEY_VALUE"),
                          properties={"operation": "put-token", "name": audience, "type": "servicebus.windows.net:sastoken"}))
    reply = replies.receive(timeout=10)  # replies come pre-settled: nothing to accept
    status = reply.properties["status-code"]
    assert status == 202, reply.properties
    return connection


def send_link(connection, queue, snd, rcv):
    sender = connection.create_sender(queue, options=Modes(SEND_MODES[snd], RECEIVE_MODES[rcv]))
    sender.send(Message(id=f"{snd}-{rcv}", body=f"sent {snd}/{rcv}"))
    sender.close()
    check = connection.create_receiver(queue, credit=1)
    message = check.receive(timeout=10)
    check.accept()
    check.close()
    assert message.body == f"sent {snd}/{rcv}", message.body
    return f"sent and received back: {message.body}"


def receive_link(connection, queue, snd, rcv):
    sender = connection.create_sender(queue)
    sender.send(Message(id=f"r-{snd}-{rcv}", body=f"for {snd}/{rcv}"))
    sender.close()
    # Credit granted in the frames right after the attach, as Proton-C does.
    receiver = connection.create_receiver(queue, credit=10, options=Modes(SEND_MODES[snd], RECEIVE_MODES[rcv]))
    message = receiver.receive(timeout=10)
    assert message.body == f"for {snd}/{rcv}", message.body
    if snd != "settled":
        receiver.accept()
    try:
        extra = receiver.receive(timeout=1)
        raise AssertionError(f"a second delivery: {extra.body}")
    except Timeout:
        pass
    receiver.close()
    return f"received {message.body} once ({'pre-settled' if snd == 'settled' else 'accepted'})"


if __name__ == "__main__":
    results = {}
    connection = None
    try:
        connection = connect()
        results["cbs_put_token"] = {"ok": True, "detail": "202 over TLS, the CA the sandbox printed"}
    except Exception as error:
        results["cbs_put_token"] = {"ok": False, "detail": f"{error!r}\n{traceback.format_exc()[-1500:]}"}
    for kind, run in (("send", send_link), ("receive", receive_link)):
        for snd in SEND_MODES:
            for rcv in RECEIVE_MODES:
                if kind == "receive" and snd == "mixed":
                    continue  # a receiver asks the broker to send settled or unsettled; Service Bus knows no mixed
                name = f"{kind}_{snd}_{rcv}"
                try:
                    if connection is None:
                        raise RuntimeError("no connection")
                    results[name] = {"ok": True, "detail": run(connection, settings["queues"][name], snd, rcv)}
                except (Exception, LinkDetached) as error:
                    results[name] = {"ok": False, "detail": f"{error!r}\n{traceback.format_exc()[-1500:]}"}
    if connection is not None:
        connection.close()
    print(json.dumps(results))
