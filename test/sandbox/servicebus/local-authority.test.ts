// The sandbox's AMQPS certificates are valid DER every time: a serial written with a zero byte ahead of a byte whose
// high bit is clear is refused by OpenSSL ("illegal padding"), and it was so for half the certificates made (the CI
// run where Python's clients could neither reach nor trust the sandbox). Node's OpenSSL parses both certificates here.
import { X509Certificate } from "node:crypto";
import { createSecureContext } from "node:tls";
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { makeLocalAuthority } from "../../../sandbox/servicebus/local-authority.js";

it("a dozen authorities in a row: the CA and the server certificate each parse, their serials positive and minimal", async () => {
  for (let i = 0; i < 12; i++) {
    const authority = await makeLocalAuthority();
    try {
      const ca = new X509Certificate(await readFile(authority.caFile));
      const server = new X509Certificate(authority.cert);
      for (const cert of [ca, server]) expect(cert.serialNumber).toMatch(/^[1-7][0-9A-F]{31}$|^0[1-9A-F][0-9A-F]{30}$/);
      expect(server.checkIssued(ca)).toBe(true);
      expect(() => createSecureContext({ key: authority.key, cert: authority.cert, ca: ca.toString() })).not.toThrow();
    } finally {
      await authority.remove();
    }
  }
}, 60_000);
