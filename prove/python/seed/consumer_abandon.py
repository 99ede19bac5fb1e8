# The seed's third consumer, as the seed writes it: abandon_message() on a timeout (failure mode 3).
from azure.servicebus import ServiceBusClient, ServiceBusReceiveMode
from azure.servicebus.exceptions import OperationTimeoutError, ServiceBusError
import stripe
import os
import json

connection_string = os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]
queue_name = os.environ["AZURE_SERVICEBUS_QUEUE_NAME"]

with ServiceBusClient.from_connection_string(connection_string) as client:
    with client.get_queue_receiver(queue_name) as receiver:
        for msg in receiver:
            event = json.loads(str(msg))
            customer_id = event["customer_id"]
            billing_period = event["billing_period"]

            try:
                stripe.api_key = os.environ["STRIPE_SECRET_KEY"]

                charge = stripe.Charge.create(
                    amount=event["amount_cents"],
                    currency="usd",
                    customer=event["stripe_customer_id"],
                    description=f"Usage billing for {billing_period}",
                    # no idempotency_key — each delivery attempt is a new Stripe request
                )
                receiver.complete_message(msg)
                print(f"Charged {customer_id}: {charge['id']}")

            except stripe.error.Timeout:
                # Stripe timed out. ch_A may already exist on Stripe's servers
                # (the charge was created before the response was lost).
                # abandon_message() releases the lock immediately — the message
                # is available to competing consumers within milliseconds.
                # No configurable backoff at the abandon layer in Service Bus.
                # The next consumer calls stripe.charges.create() again without
                # an idempotency key — ch_B is created if ch_A exists.
                receiver.abandon_message(msg)  # WRONG

            except OperationTimeoutError:
                # Service Bus SDK timed out (AMQP operation, lock renewal,
                # or management API call). The Stripe call may or may not have
                # completed. abandon_message() causes immediate redelivery.
                # If the Stripe call created ch_A before this exception was raised,
                # the redelivery creates ch_B.
                receiver.abandon_message(msg)  # WRONG

            except stripe.error.CardError:
                # Card declined — permanent failure. abandon_message() redelivers
                # indefinitely until MaxDeliveryCount is reached, then moves to DLQ.
                # This wastes delivery attempts on an unrecoverable error and
                # creates 10 failed Stripe charge attempts before the message
                # lands in the DLQ — each attempt incurring a Stripe API call
                # and a potential card re-decline event visible to the customer.
                receiver.abandon_message(msg)  # WRONG: use complete_message after writing decline
