// Seed mode 3: maxAutoLockRenewDuration is a deadline, not an interval; 60 s stops renewal mid-3DS.
package billing;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusErrorContext;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.stripe.exception.ApiConnectionException;
import com.stripe.model.PaymentIntent;
import com.stripe.net.RequestOptions;
import com.stripe.param.PaymentIntentCreateParams;
import java.time.Duration;

class BillingContainer {
    ServiceBusContainerProperties properties() {
        ServiceBusContainerProperties props = new ServiceBusContainerProperties();
        props.setAutoComplete(false);
        props.setMaxAutoLockRenewDuration(Duration.ofSeconds(60)); // expect: lock-renewal-covers-stripe
        return props;
    }
}

class ProcessorConsumer {
    private static final String STRIPE_KEY = "sk_test_FAKEKEYFORTESTS1"; // expect: no-stripe-secret-literal

    ServiceBusProcessorClient start(String connectionString) {
        return new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .processor()
            .queueName("usage-billing")
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE) // expect: no-receive-and-delete
            .maxAutoLockRenewDuration(Duration.ofMinutes(1)) // expect: lock-renewal-covers-stripe
            .processMessage(this::handle)
            .processError(this::onError)
            .buildProcessorClient(); // expect: no-abandon-on-stripe-error
    }

    void handle(ServiceBusReceivedMessageContext context) {
        try {
            PaymentIntent.create( // expect: require-idempotency-key
                PaymentIntentCreateParams.builder().setAmount(1000L).setCurrency("eur").setConfirm(true).build());
            PaymentIntent.create(
                PaymentIntentCreateParams.builder().setAmount(1000L).setCurrency("eur").build(),
                RequestOptions.builder()
                    .setIdempotencyKey("charge-" + context.getMessage().getMessageId()) // expect: stable-idempotency-key
                    .setApiKey(STRIPE_KEY)
                    .build());
        } catch (ApiConnectionException e) {
            context.abandon(); // expect: no-abandon-on-stripe-error
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    void onError(ServiceBusErrorContext context) {}
}
