"""The CRM's own REST API: it deduplicates on the Idempotency-Key header."""
import time
import uuid

import requests
from django.conf import settings


def push_plan_change(account_id, plan):
    return requests.post(
        f"{settings.CRM_URL}/accounts/{account_id}/plan",
        json={"plan": plan, "at": time.time()},
        headers={"Idempotency-Key": str(uuid.uuid4())},
        timeout=10,
    )


def record_contact(client, account_id, note):
    return client.notes.create(account=account_id, body=note, idempotency_key=f"{account_id}-{time.time()}")
