import uuid

from django.db import models


class SubscriptionRequest(models.Model):
    account = models.ForeignKey("accounts.Account", on_delete=models.CASCADE)
    price_id = models.CharField(max_length=64)
    idempotency_key = models.CharField(max_length=64, default=uuid.uuid4, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)


class AuditEvent(models.Model):
    kind = models.CharField(max_length=32)
    idempotency_key = models.CharField(max_length=64, unique=True)
    payload = models.JSONField(default=dict)


def audit(kind, payload):
    return AuditEvent.objects.create(kind=kind, idempotency_key=str(uuid.uuid4()), payload=payload)
