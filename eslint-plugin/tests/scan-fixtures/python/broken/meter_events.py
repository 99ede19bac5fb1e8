# Usage billing through Billing Meter events and invoice items: Stripe deduplicates a meter event on its identifier,
# so a missing one or one made from the delivery counts the usage twice when the message comes back.
import json
import time
import uuid

import stripe


def report_usage(msg):
    event = json.loads(str(msg))
    stripe.billing.MeterEvent.create(  # expect: require-idempotency-key
        event_name="api_calls",
        payload={"stripe_customer_id": event["stripe_customer_id"], "value": str(event["units"])},
        idempotency_key=f"usage:{event['customer_id']}:{event['period']}",
    )
    stripe.billing.MeterEvent.create(
        event_name="api_calls",
        payload={"stripe_customer_id": event["stripe_customer_id"], "value": str(event["units"])},
        identifier=f"usage-{msg.message_id}",  # expect: stable-idempotency-key
    )


def report_usage_with_client(client: stripe.StripeClient, msg, event):
    client.v2.billing.meter_events.create(  # expect: require-idempotency-key
        {"event_name": "api_calls", "payload": {"stripe_customer_id": event["stripe_customer_id"], "value": "1"}}
    )
    client.v1.billing.meter_events.create(
        params={
            "event_name": "api_calls",
            "payload": {"stripe_customer_id": event["stripe_customer_id"], "value": "1"},
            "identifier": str(uuid.uuid4()),  # expect: stable-idempotency-key
        }
    )
    identifier = f"{event['customer_id']}-{time.time()}"
    client.billing.meter_events.create(
        params={"event_name": "api_calls", "payload": {"value": "1"}, "identifier": identifier}  # expect: stable-idempotency-key
    )


def bill_add_on(event):
    stripe.InvoiceItem.create(customer=event["stripe_customer_id"], amount=500, currency="usd")  # expect: require-idempotency-key


def stream_usage(client: stripe.StripeClient, usage: list):
    client.v2.billing.meter_event_stream.create(
        {
            "events": [
                {"event_name": "api_calls", "payload": {"value": "1"}, "identifier": f"usage:{usage[0]['id']}"},
                {"event_name": "api_calls", "payload": {"value": "1"}},  # expect: require-idempotency-key
            ]
        }
    )
