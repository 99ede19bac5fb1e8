package app.billing;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.stripe.net.RequestOptions;
import java.util.UUID;

public class BillingConsumer {
  private final StripeGateway gateway;
  private final Ledger ledger;

  BillingConsumer(StripeGateway gateway, Ledger ledger) {
    this.gateway = gateway;
    this.ledger = ledger;
  }

  void handle(ServiceBusReceivedMessage message, ChargeCreateParams params, PaymentIntentCreateParams intent, Invoice invoice) throws Exception {
    gateway.charge(params, RequestOptions.builder().setApiKey(invoice.getAccountKey()).build()); // expect: require-idempotency-key
    gateway.charge(params, RequestOptions.getDefault()); // expect: require-idempotency-key
    gateway.pay(intent, message.getMessageId()); // expect: stable-idempotency-key
    String key = UUID.randomUUID().toString();
    gateway.pay(intent, key); // expect: stable-idempotency-key
    // keyed from the business event: clean
    gateway.pay(intent, "invoice-" + invoice.getId());
    gateway.charge(params, RequestOptions.builder().setIdempotencyKey("invoice-" + invoice.getId()).build());
    // another class's method of the same name and a different arity: not the wrapper
    ledger.charge(invoice, null, 3);
  }
}
