// What Stripe shows about a test card: the PaymentMethod object (inside a 402's `last_payment_error`) and the
// `payment_method_details` a charge carries. Brands and last digits are those of Stripe's documented test cards.

export interface BillingDetails {
  address: { city: null; country: null; line1: null; line2: null; postal_code: null; state: null };
  email: null;
  name: null;
  phone: null;
  tax_id: null;
}

export interface CardPaymentMethod {
  id: string;
  object: "payment_method";
  allow_redisplay: "unspecified";
  billing_details: BillingDetails;
  card: CardFacts & { checks: null; display_brand: string; generated_from: null; networks: { available: string[]; preferred: null }; regulated_status: "unregulated"; three_d_secure_usage: { supported: true }; wallet: null };
  created: number;
  customer: string | null;
  customer_account: null;
  livemode: false;
  metadata: Record<string, string>;
  type: "card";
}

export interface ChargePaymentMethodDetails {
  card: CardFacts & {
    amount_authorized: number | null;
    authorization_code: null;
    checks: { address_line1_check: null; address_postal_code_check: null; cvc_check: "pass" | null };
    electronic_commerce_indicator: null;
    installments: null;
    mandate: null;
    network: string;
    network_transaction_id: string | null;
    regulated_status: "unregulated";
    three_d_secure: null;
    transaction_link_id: null;
    wallet: null;
  };
  type: "card";
}

interface CardFacts {
  brand: string;
  country: "US";
  exp_month: number;
  exp_year: number;
  funding: "credit";
  last4: string;
}

const lastDigits: Record<string, { brand: string; last4: string }> = {
  pm_card_visa: { brand: "visa", last4: "4242" },
  tok_visa: { brand: "visa", last4: "4242" },
  pm_card_mastercard: { brand: "mastercard", last4: "4444" },
  tok_mastercard: { brand: "mastercard", last4: "4444" },
  pm_card_chargeDeclined: { brand: "visa", last4: "0002" },
  tok_chargeDeclined: { brand: "visa", last4: "0002" },
  pm_card_chargeDeclinedInsufficientFunds: { brand: "visa", last4: "9995" },
  pm_card_createDispute: { brand: "visa", last4: "0259" },
  tok_createDispute: { brand: "visa", last4: "0259" },
  pm_card_createDisputeProductNotReceived: { brand: "visa", last4: "2685" },
  tok_createDisputeProductNotReceived: { brand: "visa", last4: "2685" },
  pm_card_createDisputeInquiry: { brand: "visa", last4: "1976" },
  tok_createDisputeInquiry: { brand: "visa", last4: "1976" },
  tok_chargeDeclinedInsufficientFunds: { brand: "visa", last4: "9995" },
  pm_card_authenticationRequired: { brand: "visa", last4: "3184" },
};

function cardFacts(paymentMethod: string, createdSeconds: number): CardFacts {
  const known = lastDigits[paymentMethod] ?? { brand: "visa", last4: "4242" };
  // A test card expires a few years after use, as the cards Stripe's test helpers create.
  return { ...known, country: "US", exp_month: 12, exp_year: new Date(createdSeconds * 1000).getUTCFullYear() + 3, funding: "credit" };
}

export function emptyBillingDetails(): BillingDetails {
  return { address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: null, name: null, phone: null, tax_id: null };
}

/** The PaymentMethod a test id stands for, as Stripe expands it in `last_payment_error.payment_method`. */
export function cardPaymentMethod(paymentMethod: string, customer: string | null, createdSeconds: number): CardPaymentMethod {
  const facts = cardFacts(paymentMethod, createdSeconds);
  return {
    id: paymentMethod,
    object: "payment_method",
    allow_redisplay: "unspecified",
    billing_details: emptyBillingDetails(),
    card: {
      ...facts,
      checks: null,
      display_brand: facts.brand,
      generated_from: null,
      networks: { available: [facts.brand], preferred: null },
      regulated_status: "unregulated",
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: createdSeconds,
    customer,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: "card",
  };
}

/** `payment_method_details` of a charge made with a test card; a declined one was never authorised. */
export function chargePaymentMethodDetails(paymentMethod: string, createdSeconds: number, authorized: number | null, chargeId: string): ChargePaymentMethodDetails {
  const facts = cardFacts(paymentMethod, createdSeconds);
  return {
    card: {
      ...facts,
      amount_authorized: authorized,
      authorization_code: null,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: authorized === null ? null : "pass" },
      electronic_commerce_indicator: null,
      installments: null,
      mandate: null,
      network: facts.brand,
      network_transaction_id: authorized === null ? null : `ntx_${chargeId.slice(3)}`,
      regulated_status: "unregulated",
      three_d_secure: null,
      transaction_link_id: null,
      wallet: null,
    },
    type: "card",
  };
}
