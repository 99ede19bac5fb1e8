# Seed failure mode 1: the lock lapses during a slow charge (renewal capped at 60 s), the message goes to a
# competing consumer, and the charge carries no idempotency key: ch_B next to ch_A.
import json
import os

import stripe
from azure.servicebus import AutoLockRenewer, ServiceBusClient, ServiceBusReceiveMode

with ServiceBusClient.from_connection_string(os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]) as client:
    with client.get_queue_receiver("usage-billing", receive_mode=ServiceBusReceiveMode.PEEK_LOCK) as receiver:
        with AutoLockRenewer() as renewer:
            for msg in receiver:
                renewer.register(receiver, msg, max_lock_renewal_duration=60)  # expect: lock-renewal-covers-stripe
                event = json.loads(str(msg))
                stripe.api_key = os.environ["STRIPE_SECRET_KEY"]
                charge = stripe.Charge.create(  # expect: require-idempotency-key
                    amount=event["amount_cents"],
                    currency="usd",
                    customer=event["stripe_customer_id"],
                )
                receiver.complete_message(msg)
