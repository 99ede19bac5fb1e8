from common.keys import new_idempotency_key, order_key
from vendors.stripe_vendor import create_subscription


def subscribe(customer_id, price_id):
    return create_subscription(customer_id, price_id, idempotency_key=new_idempotency_key())  # expect: stable-idempotency-key


def subscribe_order(order):
    return create_subscription(order["customer"], order["price"], idempotency_key=order_key(order["id"]))
