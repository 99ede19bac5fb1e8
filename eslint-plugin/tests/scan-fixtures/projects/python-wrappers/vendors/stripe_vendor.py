"""The team's own wrapper around stripe: every call to Stripe goes through here."""
import stripe


def create_subscription(customer_id, price_id, idempotency_key):
    return stripe.Subscription.create(
        customer=customer_id,
        items=[{"price": price_id}],
        idempotency_key=idempotency_key,
    )
