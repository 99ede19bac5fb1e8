package com.example.payments;

import com.stripe.exception.StripeException;
import com.stripe.model.PaymentIntent;
import com.stripe.model.Refund;
import com.stripe.param.PaymentIntentCreateParams;
import com.stripe.param.RefundCreateParams;

public class PaymentService {
  private final StripeConfig stripeConfig;

  public PaymentService(StripeConfig stripeConfig) {
    this.stripeConfig = stripeConfig;
  }

  public PaymentIntent charge(String customerId, long amount) throws StripeException {
    PaymentIntentCreateParams params = PaymentIntentCreateParams.builder()
        .setAmount(amount)
        .setCurrency("usd")
        .setCustomer(customerId)
        .setConfirm(true)
        .build();
    return PaymentIntent.create(params, stripeConfig.buildRequestOptions()); // expect: require-idempotency-key
  }

  public Refund refundPart(String paymentIntentId, long amount) throws StripeException {
    RefundCreateParams params = RefundCreateParams.builder().setPaymentIntent(paymentIntentId).setAmount(amount).build();
    return Refund.create(params, stripeConfig.buildRequestOptions()); // expect: require-idempotency-key
  }

  public Refund refundOnce(String orderId, String paymentIntentId, long amount) throws StripeException {
    RefundCreateParams params = RefundCreateParams.builder().setPaymentIntent(paymentIntentId).setAmount(amount).build();
    return Refund.create(params, stripeConfig.keyedOptions("refund:" + orderId));
  }
}
