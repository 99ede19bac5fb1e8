# The seeds' fix: a content-hash key from business fields, a pre-flight check, the record written before
# complete_message(), no abandon on an unknown outcome, renewal longer than a Stripe call.
import hashlib
import json
import logging
import os

import psycopg2
import stripe
from azure.servicebus import AutoLockRenewer, ServiceBusClient, ServiceBusReceiveMode
from azure.servicebus.exceptions import MessageLockLostError

logger = logging.getLogger(__name__)


def make_idempotency_key(customer_id: str, billing_period: str) -> str:
    raw = f"{customer_id}:{billing_period}:servicebus-billing"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def process_billing_event(conn, event: dict) -> dict:
    idempotency_key = make_idempotency_key(event["customer_id"], event["billing_period"])
    with conn.cursor() as cur:
        cur.execute("SELECT charge_id FROM billing_records WHERE customer_id = %s AND billing_period = %s", (event["customer_id"], event["billing_period"]))
        if cur.fetchone():
            return {"skipped": True}
    charge = stripe.Charge.create(
        amount=event["amount_cents"],
        currency="usd",
        customer=event["stripe_customer_id"],
        idempotency_key=idempotency_key,
        api_key=os.environ["KEYBRAKE_VAULT_KEY"],
    )
    with conn.cursor() as cur:
        cur.execute(
            "INSERT INTO billing_records (customer_id, billing_period, charge_id) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            (event["customer_id"], event["billing_period"], charge["id"]),
        )
    conn.commit()
    return {"charge_id": charge["id"]}


with ServiceBusClient.from_connection_string(os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]) as client:
    with client.get_queue_receiver("usage-billing", receive_mode=ServiceBusReceiveMode.PEEK_LOCK) as receiver:
        with AutoLockRenewer(max_lock_renewal_duration=300) as renewer:
            for msg in receiver:
                renewer.register(receiver, msg, max_lock_renewal_duration=300)
                try:
                    conn = psycopg2.connect(os.environ["DATABASE_URL"])
                    process_billing_event(conn, json.loads(str(msg)))
                    receiver.complete_message(msg)
                except MessageLockLostError:
                    logger.warning("lock lost: the competing consumer meets the billing record")
                except stripe.error.Timeout:
                    logger.warning("Stripe timeout: letting the lock expire; the stable key returns the first charge")
                except stripe.error.CardError:
                    receiver.dead_letter_message(msg, reason="card_declined")


def refund(client: stripe.StripeClient, intent_id: str, options: dict, **params):
    # Options and params forwarded whole may carry the key: not reported.
    client.v1.refunds.create(params={"payment_intent": intent_id}, options=options)
    return stripe.Refund.create(payment_intent=intent_id, **params)


def record_usage(msg, event):
    # A business field named like Service Bus metadata, read from the body: the producer's data.
    return stripe.Charge.create(amount=event["amount_cents"], currency="usd", idempotency_key=event["event_id"])
