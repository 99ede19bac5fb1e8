package com.quarry.billing.orders;

public record Order(String id, long totalCents, String currency, String stripeCustomerId, String paymentMethodId, String paymentIntentId) {
    public String getId() { return id; }
    public long getTotalCents() { return totalCents; }
    public String getCurrency() { return currency; }
    public String getStripeCustomerId() { return stripeCustomerId; }
    public String getPaymentMethodId() { return paymentMethodId; }
    public String getPaymentIntentId() { return paymentIntentId; }
}
