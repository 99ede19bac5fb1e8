// Usage billing through Billing Meter events and invoice items: Stripe deduplicates a meter event on its identifier,
// so a missing one or one made from the delivery counts the usage twice when the message comes back.
package billing;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.stripe.StripeClient;
import com.stripe.model.InvoiceItem;
import com.stripe.model.billing.MeterEvent;
import com.stripe.param.InvoiceItemCreateParams;
import com.stripe.param.billing.MeterEventCreateParams;
import com.stripe.param.v2.billing.MeterEventStreamCreateParams;
import java.time.Instant;
import java.util.UUID;

class UsageReporter {
    private final StripeClient stripeClient;

    UsageReporter(StripeClient stripeClient) {
        this.stripeClient = stripeClient;
    }

    void report(ServiceBusReceivedMessage message, UsageEvent event) throws Exception {
        MeterEvent.create(
            MeterEventCreateParams.builder()
                .setEventName("api_calls")
                .putPayload("stripe_customer_id", event.stripeCustomerId())
                .putPayload("value", String.valueOf(event.units()))
                .build()); // expect: require-idempotency-key
        stripeClient.v1().billing().meterEvents().create(
            MeterEventCreateParams.builder()
                .setEventName("api_calls")
                .putPayload("value", "1")
                .setIdentifier("usage-" + message.getMessageId()) // expect: stable-idempotency-key
                .build());
        String identifier = event.customerId() + "-" + Instant.now().getEpochSecond();
        MeterEventCreateParams params = MeterEventCreateParams.builder()
            .setEventName("api_calls")
            .putPayload("value", "1")
            .setIdentifier(identifier) // expect: stable-idempotency-key
            .build();
        stripeClient.billing().meterEvents().create(params);
        MeterEvent.create(MeterEventCreateParams.builder().setEventName("api_calls").setIdentifier(UUID.randomUUID().toString()).build()); // expect: stable-idempotency-key
    }

    void stream(UsageEvent event) throws Exception {
        stripeClient.v2().billing().meterEventStream().create(
            MeterEventStreamCreateParams.builder()
                .addEvent(MeterEventStreamCreateParams.Event.builder()
                    .setEventName("api_calls")
                    .putPayload("value", "1")
                    .build()) // expect: require-idempotency-key
                .build());
    }

    void billAddOn(UsageEvent event) throws Exception {
        InvoiceItem.create(InvoiceItemCreateParams.builder().setCustomer(event.stripeCustomerId()).setAmount(500L).setCurrency("usd").build()); // expect: require-idempotency-key
    }
}
