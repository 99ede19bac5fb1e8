// A Spring project split as real ones are: the service that charges (keyed, clean on its own), the Service Bus
// configuration class, the Stripe configuration and application.yml. The receive mode and the lock renewal are
// risks of the project, found by the scan across its files.
package billing;

import com.stripe.StripeClient;
import com.stripe.model.PaymentIntent;
import com.stripe.net.RequestOptions;
import com.stripe.param.PaymentIntentCreateParams;

class BillingService {
    private final StripeClient stripeClient;

    BillingService(StripeClient stripeClient) {
        this.stripeClient = stripeClient;
    }

    PaymentIntent charge(long amount, String customer, String key) throws Exception {
        return stripeClient.paymentIntents().create(
            PaymentIntentCreateParams.builder().setAmount(amount).setCurrency("eur").setCustomer(customer).build(),
            RequestOptions.builder().setIdempotencyKey(key).build());
    }
}
