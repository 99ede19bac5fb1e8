# The seed's safe consumer, as the seed writes it: its content-hash key and pre-flight guard on PostgreSQL (psycopg2),
# then its consumer with AutoLockRenewer and write-before-complete; the two snippets in one module, as they run.
import hashlib
import stripe
import os
import json
import psycopg2

def make_idempotency_key(customer_id: str, billing_period: str) -> str:
    # Derived from stable business identity: customer + billing period only.
    # Must NOT include: Service Bus message_id (UUID assigned at enqueue;
    # DLQ resubmission assigns new UUID), lock_token (per-delivery UUID),
    # delivery_count (increments on failure), enqueued_time_utc (set at
    # original enqueue; resubmitted message has new enqueue time), or
    # sequence_number (monotonically increasing; new number per resubmission).
    # All of these change across lock expirations, DLQ resubmissions, and
    # competing-consumer deliveries — making them unsafe as idempotency sources.
    raw = f"{customer_id}:{billing_period}:servicebus-billing"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def process_billing_event(conn, event: dict) -> dict:
    customer_id = event["customer_id"]
    stripe_customer_id = event["stripe_customer_id"]
    amount_cents = event["amount_cents"]
    billing_period = event["billing_period"]

    idempotency_key = make_idempotency_key(customer_id, billing_period)

    # Pre-flight check: was this customer already billed for this period?
    # Authoritative source: billing_records with a unique constraint on
    # (customer_id, billing_period). Closes three failure modes:
    # (1) lock expiry: if the first consumer wrote billing_records before its
    #     lock expired, the second consumer's pre-flight check skips the Stripe call.
    # (2) DLQ resubmission: if the original delivery wrote billing_records before
    #     exhausting MaxDeliveryCount, the resubmission's pre-flight check
    #     finds the existing row and skips the Stripe call regardless of
    #     whether the resubmitted message has a new message_id.
    # (3) abandon_message() on timeout: if billing_records was written before
    #     the timeout or OperationTimeoutError was raised, the next delivery's
    #     pre-flight check skips the Stripe call.
    with conn.cursor() as cur:
        cur.execute(
            """
            SELECT charge_id, status FROM billing_records
            WHERE customer_id = %s AND billing_period = %s
            """,
            (customer_id, billing_period),
        )
        existing = cur.fetchone()

    if existing:
        return {
            "skipped": True,
            "reason": "already_billed",
            "charge_id": existing[0],
        }

    vault_key = os.environ["KEYBRAKE_VAULT_KEY"]   # per-billing-period key with spend cap

    charge = stripe.Charge.create(
        amount=amount_cents,
        currency="usd",
        customer=stripe_customer_id,
        description=f"Usage billing for {billing_period}",
        idempotency_key=idempotency_key,
        api_key=vault_key,   # proxied through spend-cap layer
    )

    # Write to billing_records BEFORE calling complete_message().
    # Write-before-complete: if complete_message() fails after this write,
    # Service Bus redelivers the message. The pre-flight check above skips
    # the customer on the next delivery — no second Stripe call is made.
    # ON CONFLICT DO NOTHING closes the concurrent lock-expiry race:
    # if two competing consumers both passed the pre-flight check simultaneously
    # (lock expired just before one consumer's billing call returned),
    # the unique constraint ensures only one INSERT succeeds — the second is
    # silently ignored. The second consumer's complete_message() also succeeds
    # because Service Bus allows completing a message even if another consumer
    # completed it first (MessageLockLostError is raised instead — handled below).
    with conn.cursor() as cur:
        cur.execute(
            """
            INSERT INTO billing_records
                (customer_id, billing_period, charge_id, amount_cents, status, created_at)
            VALUES (%s, %s, %s, %s, 'charged', NOW())
            ON CONFLICT (customer_id, billing_period) DO NOTHING
            """,
            (customer_id, billing_period, charge["id"], amount_cents),
        )
    conn.commit()

    return {"charge_id": charge["id"], "status": "charged"}

from azure.servicebus import ServiceBusClient, ServiceBusReceiveMode
from azure.servicebus.exceptions import (
    MessageLockLostError,
    OperationTimeoutError,
    ServiceBusError,
)
from azure.servicebus import AutoLockRenewer
import stripe
import psycopg2
import os
import json
import logging

logger = logging.getLogger(__name__)

connection_string = os.environ["AZURE_SERVICEBUS_CONNECTION_STRING"]
queue_name = os.environ["AZURE_SERVICEBUS_QUEUE_NAME"]

with ServiceBusClient.from_connection_string(connection_string) as client:
    with client.get_queue_receiver(
        queue_name,
        receive_mode=ServiceBusReceiveMode.PEEK_LOCK,
    ) as receiver:
        with AutoLockRenewer() as renewer:
            for msg in receiver:
                # Register the message for automatic lock renewal.
                # AutoLockRenewer renews the lock before LockDuration expires.
                # max_lock_renewal_duration sets how long to keep renewing (seconds).
                # Set it longer than your worst-case Stripe call duration.
                renewer.register(
                    receiver,
                    msg,
                    max_lock_renewal_duration=300,  # 5 minutes
                )

                try:
                    conn = psycopg2.connect(os.environ["DATABASE_URL"])
                    event = json.loads(str(msg))

                    result = process_billing_event(conn, event)

                    if result.get("skipped"):
                        # Pre-flight check found existing billing record.
                        # complete_message() removes the message from the queue.
                        # Do NOT abandon: abandoning redelivers and increments
                        # delivery_count toward MaxDeliveryCount.
                        receiver.complete_message(msg)
                        logger.info(
                            "Skipped %s/%s: already_billed (%s)",
                            event["customer_id"],
                            event["billing_period"],
                            result.get("charge_id"),
                        )
                        continue

                    # billing_records write completed inside process_billing_event.
                    # complete_message() removes the message — no redelivery.
                    receiver.complete_message(msg)
                    logger.info(
                        "Charged %s/%s: %s",
                        event["customer_id"],
                        event["billing_period"],
                        result.get("charge_id"),
                    )

                except MessageLockLostError:
                    # The lock expired before complete_message() was called.
                    # A competing consumer may have already received and processed
                    # this message. Do NOT abandon (lock is already lost — Service
                    # Bus will reject the abandon call). Do NOT retry here.
                    # The next delivery by the competing consumer hits the pre-flight
                    # check (billing_records row exists from our write) and skips
                    # the Stripe call. Log for monitoring but take no action.
                    logger.warning(
                        "Lock lost for %s/%s — competing consumer will handle",
                        event.get("customer_id"),
                        event.get("billing_period"),
                    )

                except stripe.error.Timeout:
                    # Stripe timed out. ch_A may or may not exist server-side.
                    # Do NOT call abandon_message() — abandon triggers immediate
                    # redelivery with no backoff, creating ch_B if ch_A exists.
                    # Instead, let the lock expire naturally: AutoLockRenewer will
                    # stop renewing (its max_lock_renewal_duration protects us from
                    # indefinite lock holding), and Service Bus will redeliver with
                    # the queue's built-in retry backoff (if configured via
                    # ServiceBusRetryOptions on the client). On redelivery, the
                    # content-hash idempotency key returns ch_A from Stripe within
                    # 24h. The pre-flight check skips the customer if billing_records
                    # was written before the timeout fired.
                    logger.warning(
                        "Stripe timeout for %s — letting lock expire for redelivery",
                        event.get("customer_id"),
                    )
                    # Do not call complete_message() or abandon_message().
                    # AutoLockRenewer will stop renewing after max_lock_renewal_duration.

                except stripe.error.CardError as e:
                    # Card declined — permanent failure. Write the decline to
                    # billing_records, then complete the message to prevent
                    # repeated card-decline events as delivery_count climbs to
                    # MaxDeliveryCount and Stripe re-attempts the card each time.
                    try:
                        with conn.cursor() as cur:
                            cur.execute(
                                """
                                INSERT INTO billing_records
                                    (customer_id, billing_period, charge_id,
                                     amount_cents, status, error, created_at)
                                VALUES (%s, %s, NULL, %s, 'card_declined', %s, NOW())
                                ON CONFLICT (customer_id, billing_period) DO NOTHING
                                """,
                                (
                                    event["customer_id"],
                                    event["billing_period"],
                                    event["amount_cents"],
                                    str(e),
                                ),
                            )
                            conn.commit()
                    finally:
                        receiver.complete_message(msg)

                except OperationTimeoutError as e:
                    # Service Bus AMQP operation timed out (lock renewal,
                    # management call, or connection reset). The Stripe call
                    # may or may not have completed. Do NOT abandon_message() —
                    # same reasoning as stripe.error.Timeout above. Let the
                    # lock expire naturally and let redelivery handle it with
                    # the idempotency key and pre-flight check in place.
                    logger.warning(
                        "Service Bus OperationTimeoutError for %s: %s — "
                        "letting lock expire",
                        event.get("customer_id"),
                        e,
                    )

                except Exception as e:
                    logger.error(
                        "Billing failed for %s: %s",
                        event.get("customer_id"),
                        e,
                    )
                    # For unknown errors, let the lock expire for redelivery.
                    # The idempotency key and pre-flight check make the next
                    # delivery safe regardless of what the current delivery did.
