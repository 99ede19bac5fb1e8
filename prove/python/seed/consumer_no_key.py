# The seed's first consumer, as the seed writes it: no idempotency key, no lock renewal (failure mode 1).
from azure.servicebus import ServiceBusClient, ServiceBusReceiveMode
import stripe
import os
import json

connection_string = os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]
queue_name = os.environ["AZURE_SERVICEBUS_QUEUE_NAME"]

with ServiceBusClient.from_connection_string(connection_string) as client:
    with client.get_queue_receiver(
        queue_name,
        receive_mode=ServiceBusReceiveMode.PEEK_LOCK,
    ) as receiver:
        for msg in receiver:
            event = json.loads(str(msg))
            customer_id = event["customer_id"]
            billing_period = event["billing_period"]

            stripe.api_key = os.environ["STRIPE_SECRET_KEY"]

            # This call can take 60-90 seconds under load with stripe-python's
            # default max_network_retries=2 (up to 3 attempts × 30s timeout).
            # The queue's LockDuration (default 60 seconds) will expire during
            # this call unless renew_message_lock() is called before T=60.
            # If AutoLockRenewer's background renewal call hits ServerBusyError
            # (Service Bus throttling), the lock expires and Service Bus delivers
            # the message to the next competing consumer.
            # The second consumer calls stripe.charges.create() for the same
            # customer — no idempotency_key means ch_B is created alongside ch_A.
            charge = stripe.Charge.create(
                amount=event["amount_cents"],
                currency="usd",
                customer=event["stripe_customer_id"],
                description=f"Usage billing for {billing_period}",
                # no idempotency_key — competing consumer creates ch_B
            )

            # complete_message() is only called after the Stripe call returns.
            # If the lock expired during the Stripe call, complete_message()
            # raises MessageLockLostError — the consumer knows the lock expired
            # only after the damage (duplicate charge) has already happened.
            receiver.complete_message(msg)
            print(f"Charged {customer_id}: {charge['id']}")
