"""Consumes settlement messages from RabbitMQ and pays the seller."""
import asyncio
import json

import aio_pika

from tidepool.payments.stripe_client import AsyncStripeClient, SellerPayout
from tidepool.settings import RABBITMQ_URL

client = AsyncStripeClient()


async def on_message(message: aio_pika.abc.AbstractIncomingMessage):
    async with message.process(requeue=True):
        body = json.loads(message.body)
        payout = SellerPayout(body["account"], body["amount_cents"], body["currency"], body["orders"])
        await client.transfer(payout)
        if body.get("instant"):
            await client.instant_payout(payout)
        else:
            await client.payout(payout)


async def main():
    connection = await aio_pika.connect_robust(RABBITMQ_URL)
    channel = await connection.channel()
    queue = await channel.declare_queue("settlements", durable=True)
    await queue.consume(on_message)
    await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
