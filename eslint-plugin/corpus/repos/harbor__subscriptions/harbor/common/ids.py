import uuid


def new_request_id():
    """A fresh id for tracing a request through our services."""
    return uuid.uuid4().hex


def short_id():
    return new_request_id()[:8]
