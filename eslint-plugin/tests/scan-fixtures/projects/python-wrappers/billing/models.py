"""The team's own rows: a key stored with the payment, never sent to Stripe."""
import uuid

from sqlalchemy import Column, String


class Payment:
    idempotency_key = Column(String, default=lambda: str(uuid.uuid4()))


def record(amount):
    return Payment(idempotency_key=str(uuid.uuid4()), amount_cents=amount)
