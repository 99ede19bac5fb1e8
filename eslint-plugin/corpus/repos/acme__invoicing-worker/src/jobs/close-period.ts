import { Worker, type Job } from "bullmq";
import { requestOptions, stripe } from "@billing/index";
import { linesFor } from "@db/ledger";
import { notifyInvoiced } from "../api/notify";

interface ClosePeriod {
  customerId: string;
  period: string;
}

async function closePeriod(job: Job<ClosePeriod>): Promise<string> {
  const { customerId, period } = job.data;
  const lines = (await linesFor(period)).filter((line) => line.customerId === customerId);
  for (const line of lines) {
    await stripe.invoiceItems.create(
      { customer: customerId, amount: line.amountCents, currency: "eur", description: `Usage ${period}` },
      requestOptions(),
    );
  }
  const invoice = await stripe.invoices.create({ customer: customerId, auto_advance: true }, requestOptions());
  await notifyInvoiced(customerId, invoice.id);
  return invoice.id;
}

export const worker = new Worker<ClosePeriod>("close-period", closePeriod, {
  connection: { host: process.env.REDIS_HOST ?? "localhost", port: 6379 },
});
worker.on("failed", (job, error) => console.error(`close-period ${job?.id} failed`, error));
