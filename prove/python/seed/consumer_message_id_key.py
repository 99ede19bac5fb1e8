# The seed's second consumer and its operator's resubmission, as the seed writes them: key = message_id (failure mode 2).
from azure.servicebus import ServiceBusClient, ServiceBusMessage, ServiceBusReceiveMode
import stripe
import os
import json

connection_string = os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]
queue_name = os.environ["AZURE_SERVICEBUS_QUEUE_NAME"]

# --- unsafe billing callback (used in original main queue consumer) ---

with ServiceBusClient.from_connection_string(connection_string) as client:
    with client.get_queue_receiver(queue_name) as receiver:
        for msg in receiver:
            event = json.loads(str(msg))

            # msg.message_id is a UUID assigned by Service Bus when the message
            # was first enqueued. Using it as an idempotency key seems natural —
            # it's the message's own unique ID — but it only works if the SAME
            # message object is retried. A resubmitted message from the DLQ
            # is a NEW ServiceBusMessage with a NEW message_id.
            idempotency_key = f"charge-{msg.message_id}"  # WRONG

            charge = stripe.Charge.create(
                amount=event["amount_cents"],
                currency="usd",
                customer=event["stripe_customer_id"],
                description=f"Usage billing for {event['billing_period']}",
                idempotency_key=idempotency_key,
                api_key=os.environ["STRIPE_SECRET_KEY"],
            )
            receiver.complete_message(msg)


# --- operator tooling for DLQ resubmission (creates new MessageId) ---

def resubmit_dead_letter(connection_string: str, queue_name: str) -> None:
    with ServiceBusClient.from_connection_string(connection_string) as client:
        # Read from the dead-letter subqueue.
        dlq_path = f"{queue_name}/$DeadLetterQueue"
        with client.get_queue_receiver(dlq_path) as dlq_receiver:
            for dlq_msg in dlq_receiver.receive_messages(max_message_count=10):
                body = str(dlq_msg)  # the original message body

                # Construct a NEW ServiceBusMessage from the body.
                # Azure Service Bus assigns a new message_id (UUID) to this object.
                # The original dlq_msg.message_id is NOT preserved unless explicitly
                # set via ServiceBusMessage(body, message_id=dlq_msg.message_id).
                # Most operator tooling (Service Bus Explorer, Azure Portal) does NOT
                # preserve the original message_id on resubmission.
                new_msg = ServiceBusMessage(body)
                # new_msg.message_id is a brand-new UUID — different from dlq_msg.message_id.

                with client.get_queue_sender(queue_name) as sender:
                    sender.send_messages(new_msg)

                dlq_receiver.complete_message(dlq_msg)
                print(f"Resubmitted: original message_id={dlq_msg.message_id}, "
                      f"new message_id={new_msg.message_id}")
                # The billing callback receives new_msg with a new message_id.
                # idempotency_key = "charge-{new_msg.message_id}" is different
                # from the original "charge-{dlq_msg.message_id}".
                # Stripe treats this as a new billing request and creates ch_B
                # if ch_A already exists for the customer from the original attempt.
