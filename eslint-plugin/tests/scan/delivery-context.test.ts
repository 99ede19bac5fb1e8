// The scan's findings are worded for where the code runs, as the ESLint rules' are: a queue consumer repeats on a
// redelivered or resubmitted message, an HTTP handler on a retry of the request, a scheduled or queued job on a rerun.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runScan } from "../../src/scan/index.js";

let project: string;

const FILES: Record<string, string> = {
  "consumer.py": `import stripe
from azure.servicebus import ServiceBusClient

def handle(receiver, msg):
    stripe.Charge.create(amount=100, currency="usd")
`,
  "views.py": `import stripe
from flask import Flask
app = Flask(__name__)

@app.route("/pay", methods=["POST"])
def pay():
    stripe.Charge.create(amount=100, currency="usd")
`,
  "tasks.py": `import stripe
from celery import shared_task

@shared_task(bind=True)
def charge(self, customer):
    stripe.PaymentIntent.create(amount=100, currency="usd", customer=customer, idempotency_key=self.request.id)
`,
  "PayController.java": `import org.springframework.web.bind.annotation.RestController;
@RestController
class PayController {
  @PostMapping("/pay")
  Charge pay(ChargeCreateParams params) throws Exception {
    return Charge.create(params);
  }
}
`,
  "webhooks.py": `import stripe
from flask import Flask, request
app = Flask(__name__)

@app.route("/webhooks/stripe", methods=["POST"])
def webhook():
    event = stripe.Webhook.construct_event(request.data, request.headers["Stripe-Signature"], SECRET)
    stripe.Refund.create(charge=event.data.object.charge)
`,
  "Nightly.java": `class Nightly {
  @Scheduled(cron = "0 0 2 * * *")
  void bill(ChargeCreateParams params) throws Exception {
    Charge.create(params, RequestOptions.builder().setIdempotencyKey(UUID.randomUUID().toString()).build());
  }
}
`,
};

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), "chargeguard-context-"));
  mkdirSync(project, { recursive: true });
  for (const [name, text] of Object.entries(FILES)) writeFileSync(path.join(project, name), text);
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

it("words each finding for a queue delivery, an HTTP request or a job", async () => {
  const findings = await runScan(["."], { cwd: project });
  const messageOf = (file: string) => findings.find((finding) => finding.file === file)?.message ?? `(no finding in ${file})`;
  expect(messageOf("consumer.py")).toContain("a redelivered or resubmitted message is a new request and charges again");
  expect(messageOf("views.py")).toContain("a retry of the same request is a new request and charges again");
  expect(messageOf("views.py")).not.toContain("message");
  expect(messageOf("tasks.py")).toContain("(a rerun of the same job)");
  expect(messageOf("PayController.java")).toContain("a retry of the same request is a new request");
  expect(messageOf("Nightly.java")).toContain("(a rerun of the same job)");
  // a Stripe webhook (#42): Stripe sends the event again until it gets a 2xx, whatever framework serves it
  expect(messageOf("webhooks.py")).toContain("a redelivered webhook event is a new request and refunds again");
});
