from datetime import timedelta

from azure.servicebus import AutoLockRenewer, ServiceBusClient, ServiceBusReceiveMode


def billing_receiver(client: ServiceBusClient):
    return client.get_queue_receiver(
        "billing",
        receive_mode=ServiceBusReceiveMode.RECEIVE_AND_DELETE,  # expect: no-receive-and-delete
        auto_lock_renewer=AutoLockRenewer(max_lock_renewal_duration=timedelta(minutes=2)),  # expect: lock-renewal-covers-stripe
    )


def audit_renewer():
    return AutoLockRenewer(max_lock_renewal_duration=timedelta(minutes=5))


def positional_renewer():
    return AutoLockRenewer(90)  # expect: lock-renewal-covers-stripe
