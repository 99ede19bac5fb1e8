/** Tells the accounts service a period was invoiced; its own API, not Stripe. */
export async function notifyInvoiced(customerId: string, invoiceId: string): Promise<void> {
  const response = await fetch(`${process.env.ACCOUNTS_URL}/v1/invoiced`, {
    method: "POST",
    headers: { "content-type": "application/json", "Idempotency-Key": `${invoiceId}-${Date.now()}` },
    body: JSON.stringify({ customerId, invoiceId }),
  });
  if (!response.ok) throw new Error(`accounts service answered ${response.status}`);
}
