# The module that charges (keyed); the receiver is made in receiver.py.
import stripe


def charge(event, key):
    return stripe.PaymentIntent.create(amount=event["amount"], currency="eur", customer=event["customer"], idempotency_key=key)
