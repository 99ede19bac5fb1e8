package com.quarry.billing.stripe;

import com.stripe.net.RequestOptions;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

@Component
public class StripeSupport {

    @Value("${stripe.secret-key}")
    private String secretKey;

    @Value("${stripe.connect-account:}")
    private String connectAccount;

    /** Every call carries our key and, for marketplace orders, the connected account. */
    public RequestOptions buildRequestOptions() {
        RequestOptions.RequestOptionsBuilder builder = RequestOptions.builder().setApiKey(secretKey);
        if (!connectAccount.isEmpty()) {
            builder.setStripeAccount(connectAccount);
        }
        return builder.build();
    }

    public RequestOptions keyedOptions(String idempotencyKey) {
        return RequestOptions.builder().setApiKey(secretKey).setIdempotencyKey(idempotencyKey).build();
    }
}
