// Seed mode 1: AUTO_COMPLETE=true abandons the message when the activator throws, and the redelivery charges
// again with a fresh UUID key.
package billing;

import com.azure.spring.cloud.service.servicebus.properties.ServiceBusContainerProperties;
import com.stripe.StripeClient;
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import java.util.UUID;

@Configuration
class BillingIntegrationConfig {
    @Bean
    public ServiceBusMessageListenerContainer listenerContainer(ServiceBusProcessorFactory processorFactory) {
        ServiceBusContainerProperties props = new ServiceBusContainerProperties();
        props.setEntityName("billing-queue");
        props.setAutoComplete(true); // expect: no-abandon-on-stripe-error
        return new ServiceBusMessageListenerContainer(processorFactory, props);
    }
}

@MessageEndpoint
class BillingServiceActivator {
    @Autowired private StripeClient stripeClient;
    @Autowired private BillingRecordRepository billingRecordRepo;

    @ServiceActivator(inputChannel = "billingChannel")
    public void processBilling(Message<BillingEvent> message) throws Exception {
        BillingEvent event = message.getPayload();
        String idempotencyKey = UUID.randomUUID().toString();
        Charge charge = stripeClient.charges().create(
            ChargeCreateParams.builder().setAmount(event.getAmountCents()).setCurrency("eur").build(),
            RequestOptions.builder()
                .setIdempotencyKey(idempotencyKey) // expect: stable-idempotency-key
                .build());
        billingRecordRepo.save(new BillingRecord(event.getAccountId(), event.getBillingPeriod(), charge.getId()));
    }
}
