package com.quarry.billing.orders;

import com.quarry.billing.stripe.StripeSupport;
import com.stripe.exception.StripeException;
import com.stripe.model.PaymentIntent;
import com.stripe.model.Refund;
import com.stripe.param.PaymentIntentCreateParams;
import com.stripe.param.RefundCreateParams;
import org.springframework.stereotype.Service;

@Service
public class OrderPaymentService {

    private final StripeSupport stripe;

    public OrderPaymentService(StripeSupport stripe) {
        this.stripe = stripe;
    }

    public PaymentIntent chargeOrder(Order order) throws StripeException {
        PaymentIntentCreateParams params = PaymentIntentCreateParams.builder()
                .setAmount(order.getTotalCents())
                .setCurrency(order.getCurrency())
                .setCustomer(order.getStripeCustomerId())
                .setPaymentMethod(order.getPaymentMethodId())
                .setConfirm(true)
                .setOffSession(true)
                .build();
        return PaymentIntent.create(params, stripe.buildRequestOptions());
    }

    public Refund refundItem(Order order, long amountCents) throws StripeException {
        RefundCreateParams params = RefundCreateParams.builder()
                .setPaymentIntent(order.getPaymentIntentId())
                .setAmount(amountCents)
                .build();
        return Refund.create(params, stripe.buildRequestOptions());
    }

    public Refund refundOrder(Order order) throws StripeException {
        RefundCreateParams params = RefundCreateParams.builder().setPaymentIntent(order.getPaymentIntentId()).build();
        return Refund.create(params, stripe.keyedOptions("order-refund-" + order.getId()));
    }

    public PaymentIntent lookup(String id) throws StripeException {
        return PaymentIntent.retrieve(id, stripe.buildRequestOptions());
    }
}
