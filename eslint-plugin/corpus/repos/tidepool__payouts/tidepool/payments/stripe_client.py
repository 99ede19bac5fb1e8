"""Async Stripe client for marketplace payouts (stripe-python 8, *_async methods)."""
from dataclasses import dataclass

import stripe

from tidepool.settings import STRIPE_SECRET_KEY


@dataclass
class SellerPayout:
    seller_account: str
    amount_cents: int
    currency: str
    order_ids: list


class AsyncStripeClient:
    def __init__(self, api_key=STRIPE_SECRET_KEY):
        self.api_key = api_key

    def _transfer_params(self, payout):
        return {
            "amount": payout.amount_cents,
            "currency": payout.currency,
            "destination": payout.seller_account,
            "metadata": {"orders": ",".join(payout.order_ids)},
            "api_key": self.api_key,
        }

    def _payout_params(self, payout):
        return {
            "amount": payout.amount_cents,
            "currency": payout.currency,
            "stripe_account": payout.seller_account,
            "api_key": self.api_key,
        }

    async def transfer(self, payout):
        return await stripe.Transfer.create_async(**self._transfer_params(payout))

    async def payout(self, payout):
        return await stripe.Payout.create_async(**self._payout_params(payout))

    async def instant_payout(self, payout):
        return await stripe.Payout.create_async(**self._payout_params(payout), method="instant")

    async def balance(self, account):
        return await stripe.Balance.retrieve_async(stripe_account=account, api_key=self.api_key)
