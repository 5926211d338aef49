-- fleetmesh link ledger, schema 4: what a node remembers about each peer it linked with
-- (docs/spec/link-events.md). Keyed by the peer's DID in its short form, so a peer that moves keeps its row.
-- Times are epoch milliseconds; strain figures are decayed to strain_at.

create table link_peer (
    peer               text     not null primary key,
    tier               smallint not null check (tier >= 0),
    clean_streak       integer  not null check (clean_streak >= 0),
    violations         bigint   not null check (violations >= 0),
    quarantined_until  bigint   not null default 0,
    in_bytes           bigint   not null default 0,
    in_events          bigint   not null default 0,
    in_verify_ns       bigint   not null default 0,
    in_query_ns        bigint   not null default 0,
    out_bytes          bigint   not null default 0,
    out_events         bigint   not null default 0,
    out_verify_ns      bigint   not null default 0,
    out_query_ns       bigint   not null default 0,
    strain_at          bigint   not null default 0
);

-- evidence of what a peer did (S3 quarantines today), kept for the findings that follow
create table link_evidence (
    id                 bigint   generated always as identity primary key,
    peer               text     not null,
    severity           text     not null check (severity in ('S1', 'S2', 'S3')),
    reason             text     not null,
    violations         integer  not null,
    period_start       bigint   not null,
    at                 bigint   not null,
    quarantined_until  bigint   not null,
    grant_id           text     not null,
    grant_event        text     not null,
    detail             text     not null
);
create index link_evidence_peer_idx on link_evidence (peer, id);
