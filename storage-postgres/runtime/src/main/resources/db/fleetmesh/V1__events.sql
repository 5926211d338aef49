-- fleetmesh event store, schema 1.
--
-- Ids and pubkeys are raw 32-byte bytea (half the size of hex text, memcmp order = NIP-01's
-- unsigned lexicographic id order). json is Event.json(): served to clients verbatim.
--
-- Text keys (tag.value, event.d_tag, deleted_address.d_tag) hold an indexable form of the value:
-- the value itself when it is at most 1000 UTF-8 bytes and has no NUL and no U+0001, otherwise
-- U+0001 followed by the hex SHA-256 of its UTF-8 bytes (see PostgresStore.textKey). Filters are
-- mapped the same way, so long or odd values still match exactly and never break an index.

create table event (
    id          bytea   not null primary key,
    pubkey      bytea   not null,
    created_at  bigint  not null,
    kind        integer not null,
    -- key of a replaceable ('') or addressable (first d tag, '' if none) event; null otherwise
    d_tag       text,
    -- NIP-40 expiration (epoch seconds); rows with expires_at <= now are invisible
    expires_at  bigint,
    json        text    not null
);

-- every index ends in (created_at desc, id): newest first, ties lowest id first (NIP-01 limit order)
create index event_created_at_idx  on event (created_at desc, id);
create index event_pubkey_idx      on event (pubkey, created_at desc, id);
create index event_kind_idx        on event (kind, created_at desc, id);
create index event_pubkey_kind_idx on event (pubkey, kind, created_at desc, id);
-- one head per replaceable/addressable address; writers also serialise on an advisory lock
create unique index event_address_idx on event (pubkey, kind, d_tag) where d_tag is not null;
create index event_expires_at_idx  on event (expires_at) where expires_at is not null;

-- one row per distinct single-letter tag (tag[0] one letter, tag[1] its value) of an event,
-- with kind and created_at copied from the event so that #e/#p/#t filters are answered in
-- order from one index (and the kind checked inside it).
--
-- No foreign key: the per-row RI trigger cost ~20% of the batch insert time. Every statement
-- that deletes events deletes their tag rows in the same statement (PostgresStore), readers
-- always join event (an orphan row can never match), and tag inserts ignore conflicts.
create table tag (
    event_id    bytea   not null,
    name        text    not null,
    value       text    not null,
    kind        integer not null,
    created_at  bigint  not null,
    primary key (event_id, name, value)
);
create index tag_value_idx on tag (name, value, created_at desc, event_id) include (kind);

-- NIP-09 tombstones: an event with this id by this author was deleted and is refused if it returns.
create table deleted_event (
    id      bytea not null,
    pubkey  bytea not null,
    primary key (id, pubkey)
);

-- NIP-09 'a' deletions: versions of <kind>:<pubkey>:<d_tag> created at or before until_created_at
-- are deleted and refused.
create table deleted_address (
    pubkey            bytea   not null,
    kind              integer not null,
    d_tag             text    not null,
    until_created_at  bigint  not null,
    primary key (pubkey, kind, d_tag)
);
