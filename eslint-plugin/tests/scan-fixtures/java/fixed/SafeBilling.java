// The seeds' fixes: a SHA-256 key from business fields, the guard write committed before the acknowledgment
// (outside @Transactional), auto-complete off, renewal longer than a Stripe call at the 120 s read timeout it
// configures (3 x 120 s + backoff), peek-lock.
package billing;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import com.stripe.StripeClient;
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;
import java.time.Duration;

@Configuration
class BillingIntegrationConfig {
    @Bean
    public ServiceBusMessageListenerContainer listenerContainer(ServiceBusProcessorFactory processorFactory) {
        ServiceBusContainerProperties props = new ServiceBusContainerProperties();
        props.setEntityName("billing-queue");
        props.setAutoComplete(false);
        props.setMaxAutoLockRenewDuration(Duration.ofMinutes(10));
        return new ServiceBusMessageListenerContainer(processorFactory, props);
    }

    ServiceBusProcessorClient processor(String connectionString, BillingServiceActivator activator) {
        return new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .processor()
            .queueName("usage-billing")
            .receiveMode(ServiceBusReceiveMode.PEEK_LOCK)
            .disableAutoComplete()
            .maxAutoLockRenewDuration(Duration.ofMinutes(10))
            .processMessage(activator::onMessage)
            .processError(context -> {})
            .buildProcessorClient();
    }
}

@MessageEndpoint
class BillingServiceActivator {
    @Autowired private BillingTransactionService billingTransactionService;
    @Autowired private BillingRecordRepository billingRecordRepo;

    @ServiceActivator(inputChannel = "billingChannel")
    public void processBilling(Message<BillingEvent> message, @Header(AzureHeaders.ACKNOWLEDGMENT) AcknowledgmentCallback ack) {
        BillingEvent event = message.getPayload();
        String idempotencyKey = Hashing.sha256()
            .hashString(event.getAccountId() + "|" + event.getBillingPeriod() + "|" + event.getAmountCents(), StandardCharsets.UTF_8)
            .toString();
        if (billingRecordRepo.existsByAccountIdAndBillingPeriod(event.getAccountId(), event.getBillingPeriod())) {
            ack.acknowledge(Status.COMPLETE);
            return;
        }
        billingTransactionService.chargeAndRecord(event, idempotencyKey);
        ack.acknowledge(Status.COMPLETE);
    }

    void onMessage(ServiceBusReceivedMessageContext context) {
        BillingEvent event = BillingEvent.parse(context.getMessage().getBody());
        billingTransactionService.chargeAndRecord(event, event.stableKey());
        context.complete();
    }
}

@Service
class BillingTransactionService {
    @Autowired private StripeClient stripeClient;
    @Autowired private BillingRecordRepository billingRecordRepo;

    @Transactional
    public void chargeAndRecord(BillingEvent event, String idempotencyKey) throws Exception {
        Charge charge = stripeClient.charges().create(
            ChargeCreateParams.builder().setAmount(event.getAmountCents()).setCurrency("eur").setCustomer(event.getStripeCustomerId()).build(),
            RequestOptions.builder().setIdempotencyKey(idempotencyKey).setReadTimeout(120_000).build());
        billingRecordRepo.save(new BillingRecord(event.getAccountId(), event.getBillingPeriod(), charge.getId(), idempotencyKey));
    }
}

class Refunds {
    // Request options built elsewhere may carry the key: not reported.
    com.stripe.model.Refund refund(RefundCreateParams params, RequestOptions options) throws Exception {
        return com.stripe.model.Refund.create(params, options);
    }
}
