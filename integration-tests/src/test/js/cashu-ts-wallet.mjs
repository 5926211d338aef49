// cashu-ts-wallet.mjs: an independent Cashu wallet for fleetmesh's integration tests, a thin CLI
// over @cashu/cashu-ts. Each command prints exactly one JSON line on stdout; on failure it prints
// {"error": <detail>, "code": <mint error code or null>} and exits 1. Proofs are kept in --store FILE.
//
//   node cashu-ts-wallet.mjs --store FILE [--unit sat] <command> ...
//     mint       <mintUrl> <amount>                       -> {"amount","quote","balance"}
//     send       <mintUrl> <amount> [--include-fees]      -> {"token","amount","balance"}
//     receive    <mintUrl> <token>                        -> {"amount","balance"}
//     balance                                             -> {"balance"}
//     lock-htlc  <mintUrl> <amount> <hashHex> <receiverPubkey33hex> <locktime> <refundPubkey33hex>
//                                                         -> {"token","amount","secrets","balance"}
//     claim-htlc <mintUrl> <token> <preimageHex> <privkeyHex> -> {"amount","balance"}
//     check      <mintUrl> <token>                        -> {"states":[{"Y","state","witness"}]}
//     melt       <mintUrl> <bolt11>                       -> {"state","preimage","paid","change","balance"}
//
// HTLC locking uses cashu-ts's own API (P2PKOptions with `hashlock`, which makes NUT-14 "HTLC"
// secrets); claiming puts the preimage into each proof's witness and lets cashu-ts sign it.

import fs from 'node:fs';
import { Wallet, getEncodedToken, hashToCurve } from '@cashu/cashu-ts';

// cashu-ts may log; keep stdout for the one JSON line.
const out = process.stdout.write.bind(process.stdout);
console.log = (...a) => process.stderr.write(a.join(' ') + '\n');
console.info = console.log;

function parse(argv) {
  const o = { store: null, unit: 'sat', includeFees: false, args: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--store') o.store = argv[++i];
    else if (argv[i] === '--unit') o.unit = argv[++i];
    else if (argv[i] === '--include-fees') o.includeFees = true;
    else o.args.push(argv[i]);
  }
  if (!o.store) throw new Error('--store FILE is required');
  return o;
}

function load(store) {
  return fs.existsSync(store) ? JSON.parse(fs.readFileSync(store, 'utf8')) : { proofs: [] };
}

function save(store, data) {
  fs.writeFileSync(`${store}.tmp`, JSON.stringify(data, null, 1));
  fs.renameSync(`${store}.tmp`, store);
}

// Proofs as plain JSON (cashu-ts 4 may hold amounts as Amount objects).
function plain(proofs) {
  return JSON.parse(JSON.stringify(proofs, (k, v) => (typeof v === 'bigint' ? Number(v) : v)));
}

const num = (x) => Number(typeof x === 'object' && x !== null && 'toNumber' in x ? x.toNumber() : x);
const total = (proofs) => proofs.reduce((a, p) => a + num(p.amount), 0);

async function wallet(mintUrl, unit) {
  const w = new Wallet(mintUrl, { unit });
  await w.loadMint();
  return w;
}

function positive(s, what) {
  if (!/^\d+$/.test(s ?? '') || Number(s) <= 0) throw new Error(`${what} must be a positive integer`);
  return Number(s);
}

async function main() {
  const o = parse(process.argv.slice(2));
  const [cmd, ...a] = o.args;
  const db = load(o.store);
  const mine = (url) => db.proofs.filter((p) => p.mint === url).map(({ mint, ...p }) => p);
  const keepOthers = (url) => db.proofs.filter((p) => p.mint !== url);
  const put = (url, proofs) => { db.proofs = [...keepOthers(url), ...plain(proofs).map((p) => ({ ...p, mint: url }))]; };
  const balance = () => total(db.proofs);

  switch (cmd) {
    case 'mint': {
      const [url, amt] = a;
      const amount = positive(amt, 'amount');
      const w = await wallet(url, o.unit);
      const quote = await w.createMintQuoteBolt11(amount);
      let q = quote;
      for (let i = 0; i < 100 && q.state !== 'PAID' && q.state !== 'ISSUED'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        q = await w.checkMintQuoteBolt11(quote.quote);
      }
      if (q.state !== 'PAID') throw new Error(`mint quote ${quote.quote} is ${q.state}, not PAID`);
      const proofs = await w.mintProofsBolt11(amount, quote.quote);
      put(url, [...mine(url), ...proofs]);
      save(o.store, db);
      return { amount: total(proofs), quote: quote.quote, balance: balance() };
    }
    case 'send': {
      const [url, amt] = a;
      const amount = positive(amt, 'amount');
      const w = await wallet(url, o.unit);
      const { keep, send } = await w.send(amount, mine(url), { includeFees: o.includeFees });
      put(url, keep);
      save(o.store, db);
      return { token: getEncodedToken({ mint: url, unit: o.unit, proofs: send }), amount: total(send), balance: balance() };
    }
    case 'receive': {
      const [url, token] = a;
      const w = await wallet(url, o.unit);
      const proofs = await w.receive(token);
      put(url, [...mine(url), ...proofs]);
      save(o.store, db);
      return { amount: total(proofs), balance: balance() };
    }
    case 'balance':
      return { balance: balance() };
    case 'lock-htlc': {
      const [url, amt, hash, receiver, locktime, refund] = a;
      const amount = positive(amt, 'amount');
      const w = await wallet(url, o.unit);
      const { keep, send } = await w.ops.send(amount, mine(url))
        .asP2PK({ pubkey: receiver, hashlock: hash, locktime: positive(locktime, 'locktime'), refundKeys: [refund] })
        .run();
      put(url, keep);
      save(o.store, db);
      return {
        token: getEncodedToken({ mint: url, unit: o.unit, proofs: send }),
        amount: total(send),
        secrets: send.map((p) => p.secret),
        balance: balance(),
      };
    }
    case 'claim-htlc': {
      const [url, token, preimage, privkey] = a;
      const w = await wallet(url, o.unit);
      const decoded = w.decodeToken(token);
      const withPreimage = decoded.proofs.map((p) => ({ ...p, witness: { preimage, signatures: [] } }));
      const proofs = await w.ops.receive(withPreimage).privkey(privkey).run();
      put(url, [...mine(url), ...proofs]);
      save(o.store, db);
      return { amount: total(proofs), balance: balance() };
    }
    case 'check': {
      const [url, token] = a;
      const w = await wallet(url, o.unit);
      const { proofs } = w.decodeToken(token);
      const states = await w.checkProofsStates(proofs);
      return {
        states: states.map((s, i) => ({
          Y: s.Y ?? hashToCurve(new TextEncoder().encode(proofs[i].secret)).toHex(true),
          state: s.state,
          witness: s.witness ?? null,
        })),
      };
    }
    case 'melt': {
      const [url, invoice] = a;
      const w = await wallet(url, o.unit);
      const quote = await w.createMeltQuoteBolt11(invoice);
      const need = num(quote.amount) + num(quote.fee_reserve);
      const { keep, send } = await w.send(need, mine(url), { includeFees: true });
      put(url, keep);
      save(o.store, db); // the inputs are gone from the wallet before the melt is tried
      let res;
      try {
        res = await w.meltProofsBolt11(quote, send);
      } catch (e) {
        put(url, [...mine(url), ...send]); // refused: the inputs are still ours (checkstate tells)
        save(o.store, db);
        throw e;
      }
      const change = res.change ?? [];
      put(url, [...mine(url), ...change]);
      save(o.store, db);
      return {
        state: res.quote?.state ?? null,
        preimage: res.quote?.payment_preimage ?? null,
        paid: total(send),
        change: total(change),
        balance: balance(),
      };
    }
    default:
      throw new Error(`unknown command ${cmd}`);
  }
}

main().then(
  (result) => out(JSON.stringify(result) + '\n'),
  (e) => {
    out(JSON.stringify({ error: e?.message ?? String(e), code: Number.isInteger(e?.code) ? e.code : null }) + '\n');
    process.exitCode = 1;
  },
);
