"""The behaviours a consumer on Python's azure-servicebus (7.8, Debian's python3-azure) and stripe-python (Debian's
python3-stripe) relies on, run against the sandbox as it ships: AMQPS on 5671 trusting the sandbox's CA. Prints one
JSON object: check name -> {"ok": bool, "detail": str}. Settings come from the environment (see python-clients.e2e).
"""
import datetime
import json
import os
import sys
import time
import traceback

from azure.servicebus import (AutoLockRenewer, ServiceBusClient, ServiceBusMessage, ServiceBusReceiveMode,
                              ServiceBusSubQueue)
from azure.servicebus.exceptions import MessageLockLostError, MessageSizeExceededError, ServiceBusError

settings = json.loads(os.environ["CHECK_SETTINGS"])
CA = settings["caFile"]
QUEUES = settings["queues"]


def client(connection_string=None, **kwargs):
    return ServiceBusClient.from_connection_string(connection_string or settings["connectionString"],
                                                   connection_verify=CA, **kwargs)


def send(sb, queue, message):
    with sb.get_queue_sender(queue) as sender:
        sender.send_messages(message)


def receive_one(receiver, wait=5):
    messages = receiver.receive_messages(max_message_count=1, max_wait_time=wait)
    assert len(messages) == 1, f"expected one message, got {len(messages)}"
    return messages[0]


def send_receive_complete(sb):
    queue = QUEUES["basic"]
    send(sb, queue, ServiceBusMessage('{"customer_id": "c-1"}', application_properties={"kind": "usage"}))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver:
        msg = receive_one(receiver)
        assert json.loads(str(msg)) == {"customer_id": "c-1"}, str(msg)
        assert msg.application_properties[b"kind"] == b"usage", msg.application_properties
        assert msg.delivery_count == 0 and msg.sequence_number == 1, (msg.delivery_count, msg.sequence_number)
        assert msg.message_id, "the broker assigns a message id"
        assert msg.lock_token is not None and msg.locked_until_utc > datetime.datetime.now(datetime.timezone.utc)
        receiver.complete_message(msg)
        assert receiver.peek_messages(max_message_count=5) == [], "completed message still there"
    return f"message {msg.message_id} sequence {msg.sequence_number} completed"


def abandon_redelivers(sb):
    queue = QUEUES["abandon"]
    send(sb, queue, ServiceBusMessage("again"))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver:
        first = receive_one(receiver)
        receiver.abandon_message(first)
        second = receive_one(receiver)
        assert second.message_id == first.message_id and second.delivery_count == 1, second.delivery_count
        receiver.complete_message(second)
    return "redelivered at once with delivery_count 1"


def defer_and_receive_deferred(sb):
    queue = QUEUES["defer"]
    send(sb, queue, ServiceBusMessage("later"))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver:
        msg = receive_one(receiver)
        receiver.defer_message(msg)
        [deferred] = receiver.receive_deferred_messages([msg.sequence_number])
        assert str(deferred) == "later" and deferred.lock_token is not None, deferred.lock_token
        receiver.complete_message(deferred)
        assert receiver.peek_messages(max_message_count=5) == []
    return f"deferred message {msg.sequence_number} received by sequence number and completed"


def dead_letter(sb):
    queue = QUEUES["deadLetter"]
    send(sb, queue, ServiceBusMessage("poison"))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver:
        receiver.dead_letter_message(receive_one(receiver), reason="InvalidEvent", error_description="bad amount")
    with sb.get_queue_receiver(queue, sub_queue=ServiceBusSubQueue.DEAD_LETTER, max_wait_time=5) as dlq:
        dead = receive_one(dlq)
        assert (dead.dead_letter_reason, dead.dead_letter_error_description) == ("InvalidEvent", "bad amount")
        dlq.complete_message(dead)
    return "dead-lettered with reason and description, read from $DeadLetterQueue"


def renew_and_lock_lost(sb):
    queue = QUEUES["shortLock"]
    send(sb, queue, ServiceBusMessage("slow"))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver:
        msg = receive_one(receiver)
        before = msg.locked_until_utc
        time.sleep(0.5)
        after = receiver.renew_message_lock(msg)
        assert after > before, (before, after)
        time.sleep(settings["shortLockMs"] / 1000 + 1)
        try:
            receiver.complete_message(msg)
            raise AssertionError("complete after the lock lapsed succeeded")
        except MessageLockLostError:
            lost = "MessageLockLostError"
        except ServiceBusError as error:
            # 7.8 checks locked_until_utc itself and raises a plain ServiceBusError (not MessageLockLostError: the
            # seed's `except MessageLockLostError` does not catch it) before asking the broker.
            assert "lock" in str(error) and "expired" in str(error), str(error)
            lost = f"ServiceBusError ({error})"
        again = receive_one(receiver)
        assert again.message_id == msg.message_id and again.delivery_count == 1, again.delivery_count
        receiver.complete_message(again)
    return f"renewed; once the lock lapsed, complete raised {lost} and the message came back with delivery_count 1"


def auto_lock_renewer(sb):
    queue = QUEUES["renewer"]
    send(sb, queue, ServiceBusMessage("held"))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver, AutoLockRenewer() as renewer:
        msg = receive_one(receiver)
        renewer.register(receiver, msg, max_lock_renewal_duration=60)
        time.sleep(settings["renewerLockMs"] / 1000 * 2)
        receiver.complete_message(msg)
    return "held past two lock durations by AutoLockRenewer, then completed"


def schedule_and_cancel(sb):
    queue = QUEUES["schedule"]
    when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=5)
    with sb.get_queue_sender(queue) as sender:
        [sequence] = sender.schedule_messages(ServiceBusMessage("next month"), when)
        with sb.get_queue_receiver(queue) as receiver:
            assert [m.sequence_number for m in receiver.peek_messages(max_message_count=5)] == [sequence]
            sender.cancel_scheduled_messages(sequence)
            assert receiver.peek_messages(max_message_count=5) == []
    return f"scheduled as {sequence}, then cancelled"


def receive_and_delete(sb):
    queue = QUEUES["receiveAndDelete"]
    send(sb, queue, ServiceBusMessage("once"))
    with sb.get_queue_receiver(queue, receive_mode=ServiceBusReceiveMode.RECEIVE_AND_DELETE, max_wait_time=5) as rd:
        assert str(receive_one(rd)) == "once"
        assert rd.peek_messages(max_message_count=5) == []
    return "removed on delivery"


def message_size(sb):
    # Up to Service Bus's 256 KB a message goes through (uamqp writes it in 64 KB frames); over it, the broker refuses a
    # lone message (7.8 does not check one itself) and the SDK raises MessageSizeExceededError, as its own tests expect.
    queue = QUEUES["large"]
    body = "a" * (200 * 1024)
    send(sb, queue, ServiceBusMessage(body))
    with sb.get_queue_receiver(queue, max_wait_time=5) as receiver:
        msg = receive_one(receiver)
        assert str(msg) == body, len(str(msg))
        receiver.complete_message(msg)
    try:
        send(sb, queue, ServiceBusMessage("a" * (256 * 1024)))
    except MessageSizeExceededError as error:
        return f"200 KB sent and received; 256 KB refused: {str(error)[:150]}"
    raise AssertionError("a message over 256 KB was sent")


def refused(operation):
    try:
        operation()
    except ServiceBusError as error:
        return f"{type(error).__name__}: {error}"
    raise AssertionError("the operation was not refused")


def wrong_key(_sb):
    bad = settings["connectionString"].replace("SharedAccessKey=SAS_KEY_VALUE", "SharedAccessKey=wrong")
    with client(bad, retry_total=0) as sb:
        text = refused(lambda: sb.get_queue_sender(QUEUES["basic"]).send_messages(ServiceBusMessage("x")))
    assert "InvalidSignature" in text or "401" in text, text
    return text[:200]


def listen_only_cannot_send(_sb):
    with client(settings["listenOnlyConnectionString"], retry_total=0) as sb:
        text = refused(lambda: sb.get_queue_sender(QUEUES["basic"]).send_messages(ServiceBusMessage("x")))
        with sb.get_queue_receiver(QUEUES["basic"]) as receiver:
            receiver.peek_messages(max_message_count=1)
    assert "Send" in text or "nauthorized" in text, text
    return text[:200]


def session_receiver_refused(sb):
    def receive():
        with sb.get_queue_receiver(QUEUES["basic"], session_id="s-1", max_wait_time=3) as receiver:
            receiver.receive_messages(max_message_count=1, max_wait_time=3)
    text = refused(receive)
    assert "sessionful" in text, text
    return text[:200]


def stripe_python(_sb):
    import stripe
    stripe.api_base = settings["stripeApiBase"]
    stripe.api_key = "sk_test_sandbox"
    stripe.max_network_retries = 0
    customer = stripe.Customer.create(source="tok_visa")
    charges = [stripe.Charge.create(amount=4900, currency="usd", customer=customer.id, idempotency_key="usage-c-1-2026-11")
               for _ in range(2)]
    assert charges[0].id == charges[1].id, [c.id for c in charges]
    try:
        stripe.Charge.create(amount=100, currency="usd", source="tok_chargeDeclined")
    except stripe.error.CardError as error:
        return f"one charge {charges[0].id} for two calls with one key; decline raises CardError ({error.code})"
    raise AssertionError("a declined card was charged")


CHECKS = [send_receive_complete, abandon_redelivers, defer_and_receive_deferred, dead_letter, renew_and_lock_lost,
          auto_lock_renewer, schedule_and_cancel, receive_and_delete, wrong_key, listen_only_cannot_send,
          session_receiver_refused, message_size, stripe_python]

if __name__ == "__main__":
    wanted = set(sys.argv[1:])
    results = {}
    with client() as sb:
        for check in CHECKS:
            if wanted and check.__name__ not in wanted:
                continue
            try:
                results[check.__name__] = {"ok": True, "detail": check(sb)}
            except Exception as error:  # every failure is reported, not raised: the next check still runs
                results[check.__name__] = {"ok": False, "detail": f"{error!r}\n{traceback.format_exc()[-1500:]}"}
    print(json.dumps(results))
