-- fleetmesh compute jobs, schema 9 (docs/spec/compute.md, "Job states" and "Crash resumption").
--
-- One row per compute/1.0 job this node buys (role BUYER) or sells (role WORKER), keyed by the request digest. Every
-- state is written before its side effect; version guards each move (a save succeeds only from the version before).
-- key is k in hex: the worker holds it from sealing (it must settle after a crash), the buyer once paid. Times are
-- epoch seconds.

create table compute_job (
    role          text     not null check (role in ('BUYER', 'WORKER')),
    id            text     not null,
    peer          text     not null,
    request       text     not null,
    state         text     not null check (state in ('requested', 'fetching', 'running', 'sealed', 'paying', 'paid',
                                                    'done', 'refused', 'failed', 'expired')),
    price_msat    bigint   not null check (price_msat >= 0),
    rail          text     not null,
    invoice       text     not null,
    payment_hash  text     not null,
    key           text     not null,
    sealed        text     not null,
    result        text     not null,
    error         text     not null,
    reexecution   text     not null,
    created_at    bigint   not null,
    updated_at    bigint   not null,
    version       bigint   not null check (version >= 1),
    primary key (role, id)
);
create index compute_job_state_idx on compute_job (role, state, updated_at);
create index compute_job_created_idx on compute_job (role, created_at desc);
