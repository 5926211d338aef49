-- fleetmesh Cashu wallet, schema 10 (docs/spec/storage.md, "Cashu wallet"; the SPI is
-- org.fleetmesh.spi.settlement.cashu.CashuStore).
--
-- What the wallet must never lose: its proofs (bearer money: a lost secret is lost value), the operations it has
-- under way with a mint (resolved on restart), its NUT-13 counters (a reused counter re-derives a secret the mint
-- already signed) and the keysets it has seen. Amounts are bigint in the mint's unit. JSON columns are text: they
-- are read back byte for byte as written (jsonb would reorder keys). Times are as the wallet gives them.

create table cashu_proof (
    secret      text    not null primary key,   -- NUT-00 secret, unique across mints
    mint        text    not null,
    keyset_id   text    not null,
    amount      bigint  not null check (amount > 0),
    c           text    not null,                -- the unblinded signature C, hex
    dleq        text,                            -- NUT-12 DLEQ JSON, null when the mint gave none
    state       text    not null check (state in ('UNSPENT', 'PENDING', 'SPENT', 'SENT', 'HELD')),
    op_id       text,                            -- the operation that holds or last moved it
    lock        text,                            -- payment hash (hex) of the HTLC it is locked to or locks
    created_at  bigint  not null
);
create index cashu_proof_mint_state_idx on cashu_proof (mint, state, created_at);
create index cashu_proof_op_idx on cashu_proof (op_id) where op_id is not null;
create index cashu_proof_lock_idx on cashu_proof (lock) where lock is not null;

create table cashu_op (
    id          text    not null primary key,
    kind        text    not null,                -- swap, mint, melt, receive, send, htlc-in, ...
    key         text,                            -- a quote id or payment hash, unique within the kind
    mint        text    not null,
    state       text    not null,                -- the wallet's own words
    payload     text    not null,                -- JSON: what recovery needs
    created_at  bigint  not null,
    updated_at  bigint  not null
);
create unique index cashu_op_kind_key_idx on cashu_op (kind, key) where key is not null;
create index cashu_op_state_idx on cashu_op (state, created_at);

create table cashu_counter (
    keyset_id   text    not null primary key,
    next        bigint  not null check (next >= 0)  -- the next NUT-13 counter value to hand out
);

create table cashu_keyset (
    mint           text     not null,
    id             text     not null,
    unit           text     not null,
    active         boolean  not null,
    input_fee_ppk  bigint   not null check (input_fee_ppk >= 0),
    keys           text     not null,           -- JSON {amount: pubkey} as the mint sent it; {} when only listed
    primary key (mint, id)
);
