package com.quarry.billing.audit;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.time.Instant;
import java.util.UUID;

@Entity
public class AuditRecord {
    @Id
    private UUID id = UUID.randomUUID();

    @Column(name = "idempotency_key", unique = true)
    private String idempotencyKey = UUID.randomUUID().toString();

    private Instant createdAt = Instant.now();

    private String action;

    protected AuditRecord() {}

    public AuditRecord(String action) {
        this.action = action;
    }
}
