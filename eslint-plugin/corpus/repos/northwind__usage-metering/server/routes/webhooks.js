const express = require("express");
const { stripe } = require("../lib/stripe");
const { reportDocuments } = require("../lib/metering");

const router = express.Router();

router.post("/stripe", express.raw({ type: "application/json" }), async (req, res) => {
  let event;
  try {
    event = stripe.webhooks.constructEvent(req.body, req.headers["stripe-signature"], process.env.STRIPE_WEBHOOK_SECRET);
  } catch (err) {
    return res.status(400).send(`Webhook Error: ${err.message}`);
  }

  if (event.type === "checkout.session.completed") {
    const session = event.data.object;
    const pages = Number(session.metadata.pages || 0);
    await reportDocuments(session.customer, pages);
  }

  if (event.type === "charge.dispute.created") {
    const dispute = event.data.object;
    await stripe.refunds.create(
      { charge: dispute.charge, reason: "fraudulent" },
      { idempotencyKey: `dispute-refund-${event.id}` },
    );
  }

  res.json({ received: true });
});

module.exports = router;
