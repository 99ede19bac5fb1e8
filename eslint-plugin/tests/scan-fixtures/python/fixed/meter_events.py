# The fix: every meter event carries an identifier from the event's business fields (the request key too, where
# one is sent); invoice items carry their own key. The timestamp may read the clock: Stripe does not dedupe on it.
import hashlib
import json
import time

import stripe


def usage_identifier(event: dict) -> str:
    raw = f"{event['customer_id']}:{event['meter']}:{event['period']}"
    return hashlib.sha256(raw.encode()).hexdigest()[:40]


def report_usage(msg):
    event = json.loads(str(msg))
    stripe.billing.MeterEvent.create(
        event_name="api_calls",
        payload={"stripe_customer_id": event["stripe_customer_id"], "value": str(event["units"])},
        identifier=usage_identifier(event),
        timestamp=int(time.time()),
    )


def report_usage_with_client(client: stripe.StripeClient, event: dict, params: dict):
    identifier = usage_identifier(event)
    client.v2.billing.meter_events.create({"event_name": "api_calls", "payload": {"value": "1"}, "identifier": identifier})
    client.v1.billing.meter_events.create(params=params)
    client.billing.meter_events.create(params)


def bill_add_on(event):
    stripe.InvoiceItem.create(
        customer=event["stripe_customer_id"],
        amount=500,
        currency="usd",
        idempotency_key=f"add-on:{usage_identifier(event)}",
    )


def stream_usage(client: stripe.StripeClient, usage: list):
    client.v2.billing.meter_event_stream.create(
        {"events": [{"event_name": "api_calls", "payload": {"value": "1"}, "identifier": usage_identifier(u)} for u in usage]}
    )
