-- fleetmesh findings, schema 8 (docs/spec/findings.md, docs/spec/standing.md).
--
-- One row per finding event (kind 1804) this node recorded, its own or received, with the verdict of its own re-check.
-- observer and subject are DIDs in short form (observer 'pubkey:<hex>' when no DID is known); created_at is the event's
-- (epoch seconds), received_at this node's clock (epoch milliseconds). Severity and scope are as tagged: a malformed
-- finding is kept too (it weighs nothing), so they are not constrained here.

create table mesh_finding (
    id               bigint   generated always as identity primary key,
    event_id         text     not null unique,
    event            text     not null,
    observer         text     not null,
    subject          text     not null,
    subject_pubkey   text,
    severity         text     not null,
    scope            text     not null,
    rule             text     not null,
    evidence_digest  text     not null,
    verdict          text     not null check (verdict in ('VERIFIED', 'ATTESTED', 'UNVERIFIABLE', 'FALSE', 'MALFORMED')),
    reason           text     not null,
    self             boolean  not null,
    created_at       bigint   not null,
    received_at      bigint   not null
);
create index mesh_finding_subject_idx on mesh_finding (subject, id);
