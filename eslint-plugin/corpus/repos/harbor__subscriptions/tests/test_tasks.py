from unittest import mock

import stripe

from harbor.billing.tasks import start_subscription

stripe.api_key = "sk_test_BQokikJOvBiI2HlWgH"


@mock.patch("harbor.vendors.stripe_gateway.stripe.Subscription.create")
def test_start_subscription_creates_one(create, subscription_request):
    create.return_value = mock.Mock(id="sub_123")
    assert start_subscription(subscription_request.pk) == "sub_123"
    stripe.Subscription.create(customer="cus_123", items=[{"price": "price_123"}])
