package billing;

import com.stripe.Stripe;
import com.stripe.StripeClient;

class StripeConfig {
    StripeClient stripeClient(String apiKey) {
        Stripe.setMaxNetworkRetries(5);
        return new StripeClient(apiKey);
    }
}
