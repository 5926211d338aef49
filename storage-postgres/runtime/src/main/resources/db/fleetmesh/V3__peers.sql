-- fleetmesh declared peers, schema 3 (docs/spec/mesh-link.md, "Peers").
--
-- One row per declared peer, keyed by its DID's key (did:peer:4 short form, or did:key). url is where the node
-- dials it now; configured_url what the declaration gave; announced_at the created_at (seconds) of the signed
-- endpoint announcement (kind 30802) that set url, null while url is the declared one.

create table mesh_peer (
    peer_key        text    not null primary key,
    did             text    not null,
    url             text    not null,
    configured_url  text    not null,
    source          text    not null check (source in ('config', 'admin')),
    added_at        bigint  not null,  -- epoch milliseconds
    announced_at    bigint
);
