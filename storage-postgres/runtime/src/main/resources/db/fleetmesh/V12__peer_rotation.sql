-- fleetmesh key hand-overs of declared peers, schema 12 (docs/spec/mesh-link.md, "Key hand-over").
--
-- A declared peer that proved a new DID with a hand-over (a DIDComm from_prior JWT) from the DID it was declared under:
-- its mesh_peer row moved to new_key in the same transaction, and links proving old_key are refused from then on.
-- The first hand-over recorded for an old key stays (a second one, to another DID, is not believed).
--
-- handover: the JWT as received; issued_at: its iat (seconds); recorded_at: milliseconds since 1970.

create table mesh_peer_rotation (
    old_key     text primary key,
    new_key     text not null,
    new_did     text not null,
    handover    text not null,
    issued_at   bigint not null,
    recorded_at bigint not null
);
