# Seed failure mode 3: abandon_message() on a Stripe timeout redelivers at once while the charge may exist.
import json
import os

import stripe
from azure.servicebus import ServiceBusClient, ServiceBusReceiveMode
from azure.servicebus.exceptions import OperationTimeoutError

STRIPE_KEY = "sk_live_FAKEKEYFORTESTS1"  # expect: no-stripe-secret-literal

with ServiceBusClient.from_connection_string(os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]) as client:
    with client.get_queue_receiver(
        "usage-billing",
        receive_mode=ServiceBusReceiveMode.RECEIVE_AND_DELETE,  # expect: no-receive-and-delete
    ) as receiver:
        for msg in receiver:
            event = json.loads(str(msg))
            key = f"{event['customer_id']}:{event['billing_period']}"
            try:
                charge = stripe.Charge.create(amount=event["amount_cents"], currency="usd", idempotency_key=key, api_key=STRIPE_KEY)
                receiver.complete_message(msg)  # expect: record-before-settle
                with conn.cursor() as cur:
                    cur.execute("INSERT INTO billing_records (customer_id, charge_id) VALUES (%s, %s)", (event["customer_id"], charge["id"]))
            except stripe.error.Timeout:
                receiver.abandon_message(msg)  # expect: no-abandon-on-stripe-error
            except OperationTimeoutError:
                receiver.abandon_message(msg)  # expect: no-abandon-on-stripe-error
