const { stripe } = require("./stripe");

// One meter event per processed document; the meter sums them per customer.
async function reportDocuments(customerId, count) {
  return stripe.billing.meterEvents.create({
    event_name: "documents_processed",
    payload: { stripe_customer_id: customerId, value: String(count) },
  });
}

module.exports = { reportDocuments };
