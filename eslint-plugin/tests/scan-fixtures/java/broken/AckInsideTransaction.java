// Seed mode 2: the acknowledgment fires inside @Transactional before the billing record is saved; a rollback
// leaves the message consumed and the charge unrecorded.
package billing;

import com.stripe.StripeClient;
import com.stripe.model.Charge;
import com.stripe.net.RequestOptions;
import com.stripe.param.ChargeCreateParams;

@MessageEndpoint
class BillingServiceActivator {
    @Autowired private StripeClient stripeClient;
    @Autowired private BillingRecordRepository billingRecordRepo;

    @ServiceActivator(inputChannel = "billingChannel")
    @Transactional
    public void processBilling(Message<BillingEvent> message, @Header(AzureHeaders.ACKNOWLEDGMENT) AcknowledgmentCallback ack) throws Exception {
        BillingEvent event = message.getPayload();
        String idempotencyKey = Hashing.sha256().hashString(event.getAccountId() + "|" + event.getBillingPeriod(), StandardCharsets.UTF_8).toString();
        Charge charge = stripeClient.charges().create(
            ChargeCreateParams.builder().setAmount(event.getAmountCents()).setCurrency("eur").build(),
            RequestOptions.builder().setIdempotencyKey(idempotencyKey).build());
        ack.acknowledge(Status.COMPLETE); // expect: record-before-settle
        billingRecordRepo.save(new BillingRecord(event.getAccountId(), event.getBillingPeriod(), charge.getId(), idempotencyKey));
    }
}
