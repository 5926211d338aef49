-- fleetmesh events, schema 13: the ordering indexes of event carry seq (and kind where it is not a key column), so that
-- a read whose events the node keeps in its event cache is one index-only scan (docs/spec/storage.md, "Reads from an
-- index"). The ordinary statements use them as before: the keys and their order are those of V11.

drop index event_created_at_idx;
drop index event_pubkey_idx;
drop index event_kind_idx;
drop index event_pubkey_kind_idx;
create index event_created_at_idx  on event (created_at desc) include (kind, seq);
create index event_pubkey_idx      on event (pubkey, created_at desc) include (kind, seq);
create index event_kind_idx        on event (kind, created_at desc) include (seq);
create index event_pubkey_kind_idx on event (pubkey, kind, created_at desc) include (seq);
alter table event cluster on event_created_at_idx;
