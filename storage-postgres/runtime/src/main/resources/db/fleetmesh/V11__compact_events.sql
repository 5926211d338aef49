-- fleetmesh event store, schema 11 (docs/spec/storage.md "Compact rows"): the same events in about half the bytes.
--
-- 1. The event's JSON is no longer stored whole. Event.json() is always
--      {"id":"<id hex>","pubkey":"<pubkey hex>","created_at":<n>,"kind":<n>,"tags":<body>,"sig":"<sig hex>"}
--    where <body> is the tags array, ',"content":' and the content string, so a row keeps <body> (text) and the
--    64-byte signature (bytea); id, pubkey, created_at and kind are columns already. Readers rebuild the JSON with
--    the expression in SqlFilter.JSON, byte for byte what was stored. A row whose JSON does not have that form
--    (none is written by any fleetmesh version; the check costs one pass) keeps it in json, and readers prefer it.
--    Saved: 256 hex characters per event, less the 65 bytes of sig.
-- 2. The ordering indexes end in created_at instead of (created_at, id): ties on created_at (rare) are put in id
--    order by an Incremental Sort over the index's order, and each entry is 33 bytes shorter.
-- 3. tag is rebuilt smaller:
--    - a row names its event by event.seq (8 bytes) instead of the 32-byte id;
--    - value is bytea: a value of exactly 64 lowercase hex characters (an id or a key: nearly every e and p tag) is
--      0x01 followed by its 32 bytes, any other value its UTF-8 bytes (TextKeys.valueBytes; injective, since no
--      other stored value starts with U+0001 except a 65-byte hashed form);
--    - the primary key (event_id, name, value) becomes a plain index on event_seq: it only finds an event's tag rows
--      (deletes, a second tag filter, the NIP-42 p-tag visibility rule), and writers insert each (name, value) of
--      an event once. Tag rows of no stored event are dropped.
-- 4. The table is rewritten in created_at order (CLUSTER): the dropped bytes are given back, and a time window reads
--    adjacent pages.

alter table event add column sig bytea;
alter table event add column body text;
alter table event alter column json drop not null;

update event set
    sig  = decode(substr(json, length(json) - 129, 128), 'hex'),
    body = substr(json, strpos(json, ',"tags":') + 8, length(json) - 138 - (strpos(json, ',"tags":') + 8) + 1)
where json ~ '^\{"id":"[0-9a-f]{64}","pubkey":"[0-9a-f]{64}","created_at":-?[0-9]+,"kind":[0-9]+,"tags":.*,"sig":"[0-9a-f]{128}"\}$';

-- keep json only where the rebuilt form would differ
update event set sig = null, body = null
where body is not null
  and '{"id":"' || encode(id, 'hex') || '","pubkey":"' || encode(pubkey, 'hex') || '","created_at":' || created_at
      || ',"kind":' || kind || ',"tags":' || body || ',"sig":"' || encode(sig, 'hex') || '"}' <> json;
update event set json = null where body is not null;

alter table event add constraint event_json_or_parts check ((json is null) = (body is not null and sig is not null));

drop index event_created_at_idx;
drop index event_pubkey_idx;
drop index event_kind_idx;
drop index event_pubkey_kind_idx;
create index event_created_at_idx  on event (created_at desc);
create index event_pubkey_idx      on event (pubkey, created_at desc);
create index event_kind_idx        on event (kind, created_at desc);
create index event_pubkey_kind_idx on event (pubkey, kind, created_at desc);

create table tag_v11 (
    created_at  bigint  not null,
    event_seq   bigint  not null,
    kind        integer not null,
    name        text    not null,
    value       bytea   not null
);
insert into tag_v11 (created_at, event_seq, kind, name, value)
select t.created_at, e.seq, t.kind, t.name,
       case when t.value ~ '^[0-9a-f]{64}$' then '\x01'::bytea || decode(t.value, 'hex') else convert_to(t.value, 'UTF8') end
from tag t join event e on e.id = t.event_id;
drop table tag;
alter table tag_v11 rename to tag;
create index tag_value_idx on tag (name, value, created_at desc, event_seq) include (kind);
create index tag_event_idx on tag (event_seq);

cluster event using event_created_at_idx;
analyze event;
analyze tag;
