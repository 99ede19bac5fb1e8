# Seed failure mode 2: the key comes from the Service Bus message id, which a dead-letter resubmission replaces.
import json
import os

import stripe
from azure.servicebus import ServiceBusClient

with ServiceBusClient.from_connection_string(os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]) as client:
    with client.get_queue_receiver("usage-billing") as receiver:
        for msg in receiver:
            event = json.loads(str(msg))
            idempotency_key = f"charge-{msg.message_id}"
            stripe.Charge.create(
                amount=event["amount_cents"],
                currency="usd",
                customer=event["stripe_customer_id"],
                idempotency_key=idempotency_key,  # expect: stable-idempotency-key
                api_key=os.environ["STRIPE_SECRET_KEY"],
            )
            receiver.complete_message(msg)


def charge_with_client(client: stripe.StripeClient, msg, event):
    # The same with a StripeClient and a random key.
    import uuid

    return client.v1.payment_intents.create(
        params={"amount": event["amount_cents"], "currency": "usd"},
        options={"idempotency_key": str(uuid.uuid4())},  # expect: stable-idempotency-key
    )
