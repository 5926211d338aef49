-- fleetmesh settlement ledger, schema 2: millisatoshi double-entry ledger and compute escrows.
--
-- Amounts are bigint millisatoshi; no numeric, no floating point. Each account keeps running
-- debit and credit totals (balance = debit - credit); bigint overflow aborts the transaction.
-- An entry, its postings, the totals and (for an escrow step) the escrow row and its step row are
-- written in one transaction. ledger_entry.entry_key is the idempotency key.

create table ledger_account (
    name         text   not null primary key,
    debit_msat   bigint not null default 0 check (debit_msat >= 0),
    credit_msat  bigint not null default 0 check (credit_msat >= 0)
);

create table ledger_entry (
    entry_key     text   not null primary key,
    -- the escrow a step entry belongs to; null for entries outside an escrow
    payment_hash  bytea  check (payment_hash is null or octet_length(payment_hash) = 32),
    created_at    bigint not null  -- epoch milliseconds
);

create table ledger_posting (
    entry_key    text     not null references ledger_entry (entry_key),
    leg          smallint not null,
    account      text     not null references ledger_account (name),
    debit_msat   bigint   not null check (debit_msat >= 0),
    credit_msat  bigint   not null check (credit_msat >= 0),
    -- exactly one side per leg
    check ((debit_msat > 0) <> (credit_msat > 0)),
    primary key (entry_key, leg)
);
create index ledger_posting_account_idx on ledger_posting (account);

create table ledger_escrow (
    payment_hash  bytea  not null primary key check (octet_length(payment_hash) = 32),
    peer          text   not null,
    rail          text   not null,
    amount_msat   bigint not null check (amount_msat > 0),
    state         text   not null check (state in ('SEALED', 'INVOICED', 'PAID', 'KEY_RELEASED', 'REFUNDED', 'EXPIRED')),
    -- optimistic lock: 1 when sealed, +1 on every step
    version       bigint not null check (version >= 1),
    -- the caller confirmed the side effect of the current step
    effect_done   boolean not null,
    updated_at    bigint not null  -- epoch milliseconds
);
-- resumeIncomplete scans only what is unfinished
create index ledger_escrow_unfinished_idx on ledger_escrow (updated_at)
    where state not in ('KEY_RELEASED', 'REFUNDED', 'EXPIRED') or not effect_done;

create table ledger_escrow_step (
    payment_hash  bytea  not null references ledger_escrow (payment_hash),
    state         text   not null,
    version       bigint not null,
    entry_key     text   not null unique references ledger_entry (entry_key),
    at            bigint not null,  -- epoch milliseconds
    primary key (payment_hash, state)
);
