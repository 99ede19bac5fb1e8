"""Thin wrapper over stripe-python so the rest of the code never imports the SDK."""
import logging

import stripe
from django.conf import settings

logger = logging.getLogger(__name__)
stripe.api_key = settings.STRIPE_SECRET_KEY


def create_subscription(customer_id, price_id, trial_days=0, request_id=None):
    logger.info("creating subscription for %s on %s", customer_id, price_id)
    return stripe.Subscription.create(
        customer=customer_id,
        items=[{"price": price_id}],
        trial_period_days=trial_days or None,
        idempotency_key=request_id,
    )


def cancel_subscription(subscription_id):
    return stripe.Subscription.delete(subscription_id)
