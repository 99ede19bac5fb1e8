package billing;

import com.azure.messaging.servicebus.ServiceBusClientBuilder;
import com.azure.messaging.servicebus.ServiceBusProcessorClient;
import com.azure.messaging.servicebus.models.ServiceBusReceiveMode;
import java.time.Duration;

class ServiceBusConfig {
    ServiceBusProcessorClient billingProcessor(String connectionString, BillingHandler handler) {
        return new ServiceBusClientBuilder()
            .connectionString(connectionString)
            .processor()
            .queueName("billing")
            .receiveMode(ServiceBusReceiveMode.RECEIVE_AND_DELETE) // expect: no-receive-and-delete
            // 5 minutes covers the defaults (250 s), not the 5 retries StripeConfig sets (6 x 80 s + 25 s = 505 s).
            .maxAutoLockRenewDuration(Duration.ofMinutes(5)) // expect: lock-renewal-covers-stripe
            .disableAutoComplete()
            .processMessage(handler::handle)
            .processError(handler::onError)
            .buildProcessorClient();
    }
}
