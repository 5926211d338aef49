-- fleetmesh declared shards, schema 7 (docs/spec/shards.md; docs/OPERATING.md, admin API).
--
-- One row per declared shard, keyed by its id (the claim's d tag). filter is the canonical filter JSON
-- (docs/spec/shards.md §2); source says who declared it last: config rows no longer configured are forgotten at start.

create table mesh_shard (
    shard_id   text    not null primary key,
    filter     text    not null,
    mode       text    not null check (mode in ('asserted', 'replicated')),
    source     text    not null check (source in ('config', 'admin')),
    added_at   bigint  not null   -- epoch seconds
);
