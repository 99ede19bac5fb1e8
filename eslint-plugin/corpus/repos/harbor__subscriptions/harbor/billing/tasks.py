from celery import shared_task

from harbor.accounts.crm import push_plan_change
from harbor.accounts.models import SubscriptionRequest, audit
from harbor.common.ids import new_request_id
from harbor.vendors.stripe_gateway import create_subscription


@shared_task(bind=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=5)
def start_subscription(self, subscription_request_id):
    request = SubscriptionRequest.objects.select_related("account").get(pk=subscription_request_id)
    subscription = create_subscription(
        request.account.stripe_customer_id,
        request.price_id,
        trial_days=14,
        request_id=new_request_id(),
    )
    audit("subscription.started", {"request": request.pk, "subscription": subscription.id})
    push_plan_change(request.account.pk, request.price_id)
    return subscription.id


@shared_task
def start_subscription_once(subscription_request_id):
    request = SubscriptionRequest.objects.select_related("account").get(pk=subscription_request_id)
    return create_subscription(
        request.account.stripe_customer_id,
        request.price_id,
        request_id=f"subscription-{request.idempotency_key}",
    ).id
