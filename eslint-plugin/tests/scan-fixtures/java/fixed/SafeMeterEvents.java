// The fix: every meter event carries an identifier from the event's business fields; invoice items carry their own
// key. The timestamp may read the clock: Stripe does not deduplicate on it.
package billing;

import com.stripe.StripeClient;
import com.stripe.model.InvoiceItem;
import com.stripe.model.billing.MeterEvent;
import com.stripe.net.RequestOptions;
import com.stripe.param.InvoiceItemCreateParams;
import com.stripe.param.billing.MeterEventCreateParams;
import com.stripe.param.v2.billing.MeterEventStreamCreateParams;
import java.time.Instant;

class SafeUsageReporter {
    private final StripeClient stripeClient;

    SafeUsageReporter(StripeClient stripeClient) {
        this.stripeClient = stripeClient;
    }

    static String usageIdentifier(UsageEvent event) {
        return event.customerId() + ":" + event.meter() + ":" + event.period();
    }

    void report(UsageEvent event) throws Exception {
        MeterEvent.create(
            MeterEventCreateParams.builder()
                .setEventName("api_calls")
                .putPayload("stripe_customer_id", event.stripeCustomerId())
                .putPayload("value", String.valueOf(event.units()))
                .setIdentifier(usageIdentifier(event))
                .setTimestamp(Instant.now().getEpochSecond())
                .build());
        String identifier = usageIdentifier(event);
        stripeClient.v1().billing().meterEvents().create(
            MeterEventCreateParams.builder().setEventName("api_calls").putPayload("value", "1").setIdentifier(identifier).build());
    }

    void stream(UsageEvent event) throws Exception {
        stripeClient.v2().billing().meterEventStream().create(
            MeterEventStreamCreateParams.builder()
                .addEvent(MeterEventStreamCreateParams.Event.builder().setEventName("api_calls").setIdentifier(usageIdentifier(event)).build())
                .build());
    }

    void billAddOn(UsageEvent event) throws Exception {
        InvoiceItem.create(
            InvoiceItemCreateParams.builder().setCustomer(event.stripeCustomerId()).setAmount(500L).setCurrency("usd").build(),
            RequestOptions.builder().setIdempotencyKey("add-on:" + usageIdentifier(event)).build());
    }
}
