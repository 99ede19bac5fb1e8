package app.billing;

import com.stripe.model.Charge;
import com.stripe.model.PaymentIntent;
import com.stripe.net.RequestOptions;

// The project's wrapper around Stripe: the options and the key come from its callers, so they are checked there.
public class StripeGateway {
  public Charge charge(ChargeCreateParams params, RequestOptions options) throws Exception {
    return Charge.create(params, options);
  }

  public PaymentIntent pay(final PaymentIntentCreateParams params, String idempotencyKey) throws Exception {
    RequestOptions options = RequestOptions.builder().setIdempotencyKey(idempotencyKey).build();
    return PaymentIntent.create(params, options);
  }
}
