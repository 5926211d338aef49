-- fleetmesh delivery, schema 5 (docs/spec/storage.md): the event store's commit sequence and the custody ledger
-- (docs/spec/custody.md, docs/spec/delivery.md).

-- Every stored event gets the next number when it is inserted. The writer takes one transaction-level advisory lock
-- (key pair 1718379877, 5) before its first insert and holds it to the commit, so that across every process writing
-- this database numbers become visible in increasing order: a reader that remembers the last number it saw misses
-- nothing committed later. Existing rows are numbered by this migration, in no particular order.
alter table event add column seq bigint generated always as identity;
create unique index event_seq_idx on event (seq);

-- One Merkle tree per (side, peer): 'received' = what the peer sent this node (receipts this node signed), 'sent' =
-- this node's mirror of the peer's tree of what this node sent it (the peer's receipts). peer is the DID short form.
-- size and receipts count the tree's leaves and the chain's receipts; appends lock the row (for update) to continue them.
create table custody_tree (
    id        integer generated always as identity primary key,
    side      text    not null check (side in ('received', 'sent')),
    peer      text    not null,
    size      bigint  not null default 0 check (size >= 0),
    receipts  bigint  not null default 0 check (receipts >= 0),
    unique (side, peer)
);

-- A tree's leaves: idx 0, 1, ... in append order; an id is a leaf of a tree at most once. No foreign keys to
-- custody_tree (trees are never deleted; the per-row RI trigger would tax every receipt's batch insert).
-- bytes: UTF-8 length of the event's JSON as it travelled in the frame; hops: links it had crossed when it arrived.
create table custody_leaf (
    tree      integer  not null,
    idx       bigint   not null check (idx >= 0),
    event_id  bytea    not null check (length(event_id) = 32),
    bytes     integer  not null check (bytes >= 0),
    hops      integer  not null check (hops >= 0),
    primary key (tree, idx)
);
-- leading event_id: serves "is it a leaf of this tree" and "which peers hold it" (holders, across trees)
create unique index custody_leaf_event_idx on custody_leaf (event_id, tree);

-- A tree's chain of kind 11803 receipts: position 0, 1, ...; json is the receipt event as signed.
-- consistency (RFC 9162 proof from the previous receipt's tree size) and compact_range (the roots of the tree's
-- perfect subtrees at tree_size, left to right) are 32-byte hashes concatenated.
create table custody_receipt (
    tree           integer  not null,
    position       bigint   not null check (position >= 0),
    tree_size      bigint   not null check (tree_size >= 0),
    seq            bigint   not null,
    receipt_id     bytea    not null check (length(receipt_id) = 32),
    json           text     not null,
    bytes          bigint   not null,
    events         bigint   not null,
    consistency    bytea    not null check (length(consistency) % 32 = 0),
    compact_range  bytea    not null check (length(compact_range) % 32 = 0),
    primary key (tree, position)
);

-- Store-and-forward per peer: acked_seq = event.seq up to which everything the peer wanted is receipted (or refused
-- for good); next_frame_seq = the pair's next frame sequence; filters = the NIP-01 filters the peer last asked for
-- (a JSON array); halted = why forwarding to it stopped ('' when it did not).
create table delivery_outbound (
    peer            text    not null primary key,
    acked_seq       bigint  not null,
    next_frame_seq  bigint  not null,
    filters         text    not null,
    halted          text    not null
);
