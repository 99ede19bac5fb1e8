"""The team's own async Stripe client: transfers, payouts and instant payouts for the marketplace."""
import stripe


class MarketplaceStripeClient:
    def _transfer_params(self, seller):
        return {"amount": seller["balance"], "currency": "usd", "destination": seller["account"]}

    def _payout_params(self, seller, method="standard"):
        return {"amount": seller["balance"], "currency": "usd", "method": method}

    async def send_transfer(self, seller):
        return await stripe.Transfer.create_async(**self._transfer_params(seller))  # expect: require-idempotency-key

    async def pay_out(self, seller):
        return await stripe.Payout.create_async(**self._payout_params(seller), stripe_account=seller["account"])  # expect: require-idempotency-key

    async def pay_out_instantly(self, seller, batch):
        return await stripe.Payout.create_async(**self._payout_params(seller, "instant"), idempotency_key=f"payout:{batch}:{seller['id']}")
