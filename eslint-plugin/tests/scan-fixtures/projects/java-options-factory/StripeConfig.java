package com.example.payments;

import com.stripe.net.RequestOptions;

public class StripeConfig {
  private final String apiKey;

  public StripeConfig(String apiKey) {
    this.apiKey = apiKey;
  }

  /** The options every call to Stripe is made with: the account's key, and nothing per request. */
  public RequestOptions buildRequestOptions() {
    return RequestOptions.builder().setApiKey(apiKey).setMaxNetworkRetries(2).build();
  }

  public RequestOptions keyedOptions(String idempotencyKey) {
    return RequestOptions.builder().setApiKey(apiKey).setIdempotencyKey(idempotencyKey).build();
  }
}
