import uuid


def new_idempotency_key():
    return str(uuid.uuid4())


def order_key(order_id):
    return f"order:{order_id}"
