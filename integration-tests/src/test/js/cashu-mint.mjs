// cashu-mint.mjs: a SIMULATED Cashu mint for fleetmesh's integration tests. It is a simulation
// for tests, NOT a mint: it holds no money, its keys come from a test seed, and Lightning is faked
// the way nutshell's FakeWallet fakes it (mint quotes are marked paid by the test or at once, every
// melt "pays" its invoice with a preimage unless the test asks for a failure).
//
// The ecash side is real: blind signatures, DLEQ proofs and proof verification come from
// @cashu/crypto's mint module, hash_to_curve from its common module, and the NUT-11/NUT-14
// signature checks use @noble/curves' BIP-340 schnorr. It speaks the NUT HTTP API (NUT-01..09,
// 10, 11, 12, 14, bolt11 per NUT-23) on 127.0.0.1 with node:http.
//
// Crash simulation: everything the mint must remember (seed, spent Ys with witnesses, pending
// Ys, signed B_ -> signature, quotes) is written to --state FILE (writeFileSync + rename) before
// every response, and read back at start. POST /test/hang-next makes the next matching request
// commit its effects and never answer, so a test can SIGKILL the process and restart it.
//
// Usage: node cashu-mint.mjs [--port 0] [--state FILE] [--seed HEX] [--unit sat|msat]
//   [--fee-ppk N] [--fee-reserve N] [--ln-fee N] [--auto-pay|--no-auto-pay] [--keyset-v1]
//   [--max-order N] [--quote-expiry SECONDS] [--max-amount N]
// Prints exactly one line "MINT_URL http://127.0.0.1:<port>" on stdout when ready; logs go to stderr.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes, createHash } from 'node:crypto';
import cryptoMint from '@cashu/crypto/modules/mint';
import cryptoNut12 from '@cashu/crypto/modules/mint/NUT12';
import cryptoCommon from '@cashu/crypto/modules/common';
import { secp256k1, schnorr } from '@noble/curves/secp256k1';
import { bech32 } from '@scure/base';
import { decode as decodeBolt11 } from 'light-bolt11-decoder';

const { createNewMintKeys, createBlindSignature, verifyProof } = cryptoMint;
const { createDLEQProof } = cryptoNut12;
const { hashToCurve, pointFromHex } = cryptoCommon;

const MAX_BODY = 1024 * 1024;
const MAX_INPUTS = 1000;
const MAX_OUTPUTS = 1000;
const MAX_SECRET = 1024;
const enc = new TextEncoder();

// ---------- arguments ----------

function parseArgs(argv) {
  const o = {
    port: 0, state: null, seed: null, unit: 'sat', feePpk: 0, feeReserve: 2, lnFee: 0,
    autoPay: true, keysetV1: false, maxOrder: 32, quoteExpiry: 3600, maxAmount: 1_000_000_000,
  };
  const num = (v, name) => {
    if (!/^\d+$/.test(v ?? '')) fatal(`${name} needs a non-negative integer, got ${v}`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    switch (a) {
      case '--port': o.port = num(next(), a); break;
      case '--state': o.state = next(); break;
      case '--seed': o.seed = next(); break;
      case '--unit': o.unit = next(); break;
      case '--fee-ppk': o.feePpk = num(next(), a); break;
      case '--fee-reserve': o.feeReserve = num(next(), a); break;
      case '--ln-fee': o.lnFee = num(next(), a); break;
      case '--auto-pay': o.autoPay = true; break;
      case '--no-auto-pay': o.autoPay = false; break;
      case '--keyset-v1': o.keysetV1 = true; break;
      case '--max-order': o.maxOrder = num(next(), a); break;
      case '--quote-expiry': o.quoteExpiry = num(next(), a); break;
      case '--max-amount': o.maxAmount = num(next(), a); break;
      default: fatal(`unknown argument ${a}`);
    }
  }
  if (!['sat', 'msat'].includes(o.unit)) fatal(`--unit must be sat or msat, got ${o.unit}`);
  if (o.maxOrder < 1 || o.maxOrder > 48) fatal('--max-order must be 1..48 (amounts stay exact JS numbers)');
  if (o.seed !== null && !/^([0-9a-f]{2}){16,64}$/.test(o.seed)) fatal('--seed must be 16..64 bytes of lower-case hex');
  return o;
}

function fatal(msg) {
  process.stderr.write(`cashu-mint: ${msg}\n`);
  process.exit(2);
}

const opts = parseArgs(process.argv.slice(2));

// ---------- persistent state ----------

function emptyState(seed) {
  return {
    version: 1,
    seed,
    unit: opts.unit,
    spent: {},      // Y hex -> { witness: string|null }
    pending: {},    // Y hex -> melt quote id
    signed: {},     // B_ hex -> BlindSignature JSON (with dleq)
    mintQuotes: {}, // quote id -> quote record
    meltQuotes: {}, // quote id -> quote record
    preimages: {},  // payment hash hex -> preimage hex the fake Lightning backend reveals when paying
    paid: [],       // invoices the fake backend paid: { request, amount_msat, preimage }
  };
}

let state;
if (opts.state && fs.existsSync(opts.state)) {
  state = JSON.parse(fs.readFileSync(opts.state, 'utf8'));
  if (opts.seed && opts.seed !== state.seed) fatal(`--seed differs from the seed in ${opts.state}`);
  if (state.unit !== opts.unit) fatal(`--unit ${opts.unit} differs from ${state.unit} in ${opts.state}`);
} else {
  state = emptyState(opts.seed ?? Buffer.from(randomBytes(32)).toString('hex'));
}

function persist() {
  if (!opts.state) return;
  const tmp = `${opts.state}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state));
  fs.renameSync(tmp, opts.state);
}
persist();

// ---------- keys (NUT-01/02) ----------

// A distinct seed per unit, so a sat and an msat mint from the same --seed have different keys.
const keySeed = createHash('sha256').update(Buffer.from(state.seed, 'hex')).update(`|unit:${opts.unit}`).digest();
const pair = createNewMintKeys(opts.maxOrder, new Uint8Array(keySeed));
const pubHex = {};
for (const [amount, pub] of Object.entries(pair.pubKeys)) pubHex[amount] = Buffer.from(pub).toString('hex');
const amountsAsc = Object.keys(pubHex).map(Number).sort((a, b) => a - b);

function keysetIdV2() {
  const parts = amountsAsc.map((a) => `${a}:${pubHex[a]}`).join(',');
  let pre = `${parts}|unit:${opts.unit}`;
  if (opts.feePpk) pre += `|input_fee_ppk:${opts.feePpk}`;
  return '01' + createHash('sha256').update(pre, 'utf8').digest('hex');
}
const KEYSET_ID = opts.keysetV1 ? pair.keysetId : keysetIdV2();

// The fake Lightning node's key (signs our BOLT-11 invoices) and the mint's info pubkey.
const nodeKey = createHash('sha256').update('fleetmesh-cashu-sim node key').update(keySeed).digest();
const mintInfoKey = createHash('sha256').update('fleetmesh-cashu-sim info key').update(keySeed).digest();

function keysetJson() {
  const keys = {};
  for (const a of amountsAsc) keys[String(a)] = pubHex[a];
  return { id: KEYSET_ID, unit: opts.unit, active: true, input_fee_ppk: opts.feePpk, final_expiry: null, keys };
}

// ---------- errors ----------

class MintError extends Error {
  constructor(code, detail, status = 400) {
    super(detail);
    this.code = code;
    this.status = status;
  }
}
const fail = (code, detail) => { throw new MintError(code, detail); };

// ---------- helpers ----------

const isHex = (s, len) => typeof s === 'string' && (len === undefined ? s.length % 2 === 0 : s.length === len) && /^[0-9a-f]*$/.test(s);
const now = () => Math.floor(Date.now() / 1000);
const sha256hex = (bytes) => createHash('sha256').update(bytes).digest('hex');

function uuidv7() {
  const b = randomBytes(16);
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function amountOf(v, what) {
  if (!Number.isSafeInteger(v) || v <= 0) fail(11006, `${what}: amount must be a positive integer`);
  return v;
}

function pointOf(hex, what) {
  if (!isHex(hex, 66) || !(hex.startsWith('02') || hex.startsWith('03'))) fail(10001, `${what} is not a compressed point`);
  try {
    return pointFromHex(hex);
  } catch {
    fail(10001, `${what} is not a point on secp256k1`);
  }
}

function yOf(secret) {
  return hashToCurve(enc.encode(secret)).toHex(true);
}

function splitPow2(amount) {
  const out = [];
  for (const a of [...amountsAsc].reverse()) {
    while (amount >= a) { out.push(a); amount -= a; }
  }
  return out.reverse();
}

// ---------- blind signatures (NUT-00, NUT-12) ----------

function checkOutputs(outputs, { blank = false } = {}) {
  if (!Array.isArray(outputs)) fail(11008, 'outputs must be an array');
  if (outputs.length > MAX_OUTPUTS) fail(11015, `more than ${MAX_OUTPUTS} outputs`);
  const seen = new Set();
  for (const o of outputs) {
    if (!o || typeof o !== 'object') fail(10001, 'output is not an object');
    if (o.id !== KEYSET_ID) fail(12001, `keyset ${o.id} is not known`);
    if (!blank) {
      if (!Number.isSafeInteger(o.amount) || !pubHex[o.amount]) fail(11005, `output amount ${o.amount} is not in the keyset`);
    }
    pointOf(o.B_, 'B_');
    if (seen.has(o.B_)) fail(11008, 'duplicate outputs');
    seen.add(o.B_);
    if (state.signed[o.B_]) fail(11003, 'outputs have already been signed before');
  }
}

function sign(output, amount) {
  const priv = pair.privKeys[String(amount)];
  const B_ = pointFromHex(output.B_);
  const sig = createBlindSignature(B_, priv, amount, KEYSET_ID);
  const dleq = createDLEQProof(B_, priv);
  const json = {
    id: KEYSET_ID,
    amount,
    C_: sig.C_.toHex(true),
    dleq: { e: Buffer.from(dleq.e).toString('hex'), s: Buffer.from(dleq.s).toString('hex') },
  };
  state.signed[output.B_] = json;
  return json;
}

// ---------- inputs and spending conditions (NUT-03, 10, 11, 14) ----------

const P2PK_TAGS = ['sigflag', 'pubkeys', 'n_sigs', 'locktime', 'refund', 'n_sigs_refund'];

// Returns { kind, data, tags: Map key -> values, rawTags } for a NUT-10 secret of a kind this
// mint enforces (P2PK, HTLC), null for any other secret; throws when such a secret is malformed.
function wellKnown(secret) {
  let parsed;
  try {
    parsed = JSON.parse(secret);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string') return null;
  const kind = parsed[0];
  if (kind !== 'P2PK' && kind !== 'HTLC') return null;
  const body = parsed[1];
  if (!body || typeof body !== 'object' || typeof body.nonce !== 'string' || typeof body.data !== 'string') {
    fail(10001, `malformed ${kind} secret`);
  }
  const rawTags = body.tags ?? [];
  if (!Array.isArray(rawTags)) fail(10001, `malformed ${kind} secret: tags is not an array`);
  const tags = new Map();
  for (const t of rawTags) {
    if (!Array.isArray(t) || t.length < 1 || t.some((s) => typeof s !== 'string' || s.length === 0)) {
      fail(10001, `malformed ${kind} secret: a tag must be one or more non-empty strings`);
    }
    if (P2PK_TAGS.includes(t[0])) {
      if (tags.has(t[0])) fail(10001, `malformed ${kind} secret: tag ${t[0]} appears twice`);
      tags.set(t[0], t.slice(1));
    }
  }
  const sigflag = tags.get('sigflag')?.[0] ?? 'SIG_INPUTS';
  if (sigflag !== 'SIG_INPUTS' && sigflag !== 'SIG_ALL') fail(10001, `malformed ${kind} secret: sigflag ${sigflag}`);
  const mainKeys = kind === 'P2PK' ? [body.data, ...(tags.get('pubkeys') ?? [])] : [...(tags.get('pubkeys') ?? [])];
  const refundKeys = [...(tags.get('refund') ?? [])];
  for (const [name, keys] of [['main', mainKeys], ['refund', refundKeys]]) {
    const xs = new Set();
    for (const k of keys) {
      if (!/^0[23][0-9a-fA-F]{64}$/.test(k)) fail(10001, `malformed ${kind} secret: ${k} is not a compressed public key`);
      const x = k.slice(2).toLowerCase();
      if (xs.has(x)) fail(10001, `malformed ${kind} secret: key ${k} appears twice in the ${name} pathway`);
      xs.add(x);
    }
  }
  const nSigs = threshold(tags, 'n_sigs', mainKeys.length, kind);
  const nSigsRefund = threshold(tags, 'n_sigs_refund', refundKeys.length, kind);
  if (kind === 'HTLC' && !/^[0-9a-fA-F]{64}$/.test(body.data)) fail(10001, 'malformed HTLC secret: data is not a 32-byte hash');
  const lt = tags.get('locktime')?.[0];
  const locktime = lt !== undefined && /^\d+$/.test(lt) ? Number(lt) : null; // else a permanent lock
  return { kind, data: body.data, sigflag, mainKeys, refundKeys, nSigs, nSigsRefund, locktime, rawTags };
}

function threshold(tags, name, keyCount, kind) {
  const v = tags.get(name)?.[0];
  if (v === undefined) return 1;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > keyCount) {
    fail(10001, `malformed ${kind} secret: ${name} ${v} is not a positive integer at most ${keyCount}`);
  }
  return Number(v);
}

function parseWitness(w) {
  if (w === undefined || w === null) return { signatures: [] };
  let obj = w;
  if (typeof w === 'string') {
    try {
      obj = JSON.parse(w);
    } catch {
      fail(10001, 'witness is not JSON');
    }
  }
  if (!obj || typeof obj !== 'object') fail(10001, 'witness is not an object');
  const signatures = obj.signatures ?? [];
  if (!Array.isArray(signatures) || signatures.some((s) => typeof s !== 'string')) fail(10001, 'witness signatures must be strings');
  return { signatures, preimage: obj.preimage };
}

// Number of distinct keys (by x coordinate) with a valid BIP-340 signature on SHA256(message).
function validSigners(keys, signatures, message) {
  const digest = createHash('sha256').update(message, 'utf8').digest();
  let n = 0;
  for (const k of keys) {
    const x = Buffer.from(k.slice(2), 'hex');
    const ok = signatures.some((s) => {
      if (!/^[0-9a-fA-F]{128}$/.test(s)) return false;
      try {
        return schnorr.verify(Buffer.from(s, 'hex'), digest, x);
      } catch {
        return false;
      }
    });
    if (ok) n++;
  }
  return n;
}

// NUT-11 / NUT-14 pathways for one well-known secret with the given witness and signed message.
function authorise(wk, witness, message) {
  const w = parseWitness(witness);
  const expired = wk.locktime !== null && now() >= wk.locktime;
  if (wk.kind === 'P2PK') {
    if (validSigners(wk.mainKeys, w.signatures, message) >= wk.nSigs) return;
  } else {
    const preimageOk = typeof w.preimage === 'string' && /^[0-9a-fA-F]{64}$/.test(w.preimage)
      && sha256hex(Buffer.from(w.preimage, 'hex')) === wk.data.toLowerCase();
    if (preimageOk) {
      if (wk.mainKeys.length === 0 || validSigners(wk.mainKeys, w.signatures, message) >= wk.nSigs) return;
      if (!expired) fail(10001, 'HTLC: preimage is right but the receiver signatures are missing or invalid');
    } else if (!expired) {
      fail(10001, w.preimage === undefined ? 'HTLC: no preimage in the witness' : 'HTLC: preimage does not match the hash lock');
    }
  }
  if (expired) {
    if (wk.refundKeys.length === 0) return; // lock expired without refund keys: anyone can spend
    if (validSigners(wk.refundKeys, w.signatures, message) >= wk.nSigsRefund) return;
    fail(10001, `${wk.kind}: locktime passed but refund signatures are missing or invalid`);
  }
  fail(10001, `${wk.kind}: signatures are missing or invalid`);
}

function sigAllMessage(inputs, outputs, quoteId) {
  let m = '';
  for (const p of inputs) m += p.secret + p.C;
  for (const o of outputs) m += String(o.amount) + o.B_;
  if (quoteId !== undefined) m += quoteId;
  return m;
}

// Checks inputs for a swap or melt; returns { total, fee, ys }. No state changes.
function checkInputs(inputs, outputs, quoteId) {
  if (!Array.isArray(inputs) || inputs.length === 0) fail(10001, 'inputs must be a non-empty array');
  if (inputs.length > MAX_INPUTS) fail(11014, `more than ${MAX_INPUTS} inputs`);
  const ys = [];
  const seen = new Set();
  let total = 0;
  for (const p of inputs) {
    if (!p || typeof p !== 'object') fail(10001, 'input is not an object');
    if (typeof p.secret !== 'string' || p.secret.length === 0 || p.secret.length > MAX_SECRET) fail(10001, 'input secret must be a string of 1..1024 characters');
    if (p.id !== KEYSET_ID) fail(12001, `keyset ${p.id} is not known`);
    if (!Number.isSafeInteger(p.amount) || !pubHex[p.amount]) fail(10001, `input amount ${p.amount} is not in the keyset`);
    const y = yOf(p.secret);
    if (seen.has(y)) fail(11007, 'duplicate inputs provided');
    seen.add(y);
    ys.push(y);
    total += p.amount;
  }
  for (const y of ys) if (state.spent[y]) fail(11001, 'Token already spent.');
  for (const y of ys) if (state.pending[y]) fail(11002, 'Token is pending.');
  for (const p of inputs) {
    const C = pointOf(p.C, 'C');
    if (!verifyProof({ C, secret: enc.encode(p.secret), amount: p.amount, id: p.id }, pair.privKeys[String(p.amount)])) {
      fail(10001, 'Proof verification failed: C is not a valid signature on the secret');
    }
  }
  // spending conditions
  const wks = inputs.map((p) => wellKnown(p.secret));
  const sigAll = wks.some((wk) => wk && wk.sigflag === 'SIG_ALL');
  if (sigAll) {
    const first = wks[0];
    const same = (wk) => wk && wk.kind === first?.kind && wk.data === first.data
      && JSON.stringify(wk.rawTags) === JSON.stringify(first.rawTags);
    if (!wks.every(same)) fail(10001, 'SIG_ALL: all inputs must have the same kind, data and tags');
    authorise(first, inputs[0].witness, sigAllMessage(inputs, outputs, quoteId));
  } else {
    inputs.forEach((p, i) => { if (wks[i]) authorise(wks[i], p.witness, p.secret); });
  }
  const fee = Math.floor((inputs.length * opts.feePpk + 999) / 1000);
  return { total, fee, ys };
}

function witnessString(w) {
  if (w === undefined || w === null) return null;
  return typeof w === 'string' ? w : JSON.stringify(w);
}

function markSpent(inputs, ys) {
  inputs.forEach((p, i) => {
    state.spent[ys[i]] = { witness: witnessString(p.witness) };
    delete state.pending[ys[i]];
  });
}

// ---------- fake Lightning: BOLT-11 invoices signed with a throwaway node key ----------

function hrpAmount(msat) {
  if (msat % 100_000_000 === 0) return `${msat / 100_000_000}m`;
  if (msat % 100_000 === 0) return `${msat / 100_000}u`;
  if (msat % 100 === 0) return `${msat / 100}n`;
  return `${msat * 10}p`;
}

function intWords(n) {
  const w = [];
  do { w.unshift(n % 32); n = Math.floor(n / 32); } while (n > 0);
  return w;
}

function tagged(type, words) {
  return [type, words.length >> 5, words.length & 31, ...words];
}

function encodeInvoice({ msat, paymentHash, description, expiry }) {
  const hrp = `lnbcrt${hrpAmount(msat)}`;
  const words = [...intWords(now()).slice(-7)];
  while (words.length < 7) words.unshift(0);
  words.push(...tagged(1, bech32.toWords(Buffer.from(paymentHash, 'hex'))));
  words.push(...tagged(16, bech32.toWords(randomBytes(32))));
  words.push(...tagged(13, bech32.toWords(Buffer.from(description, 'utf8'))));
  words.push(...tagged(6, intWords(expiry)));
  words.push(...tagged(24, intWords(18)));
  words.push(...tagged(5, [16, 8, 0])); // features: var_onion_optin (bit 8) and payment_secret (bit 14), required
  const dataBytes = Buffer.from(wordsToBytesPadded(words));
  const digest = createHash('sha256').update(Buffer.concat([Buffer.from(hrp, 'utf8'), dataBytes])).digest();
  const sig = secp256k1.sign(digest, nodeKey);
  const sigBytes = Buffer.concat([Buffer.from(sig.toCompactRawBytes()), Buffer.from([sig.recovery])]);
  words.push(...bech32.toWords(sigBytes));
  return bech32.encode(hrp, words, false);
}

function wordsToBytesPadded(words) {
  let acc = 0, bits = 0;
  const out = [];
  for (const w of words) {
    acc = (acc << 5) | w;
    bits += 5;
    while (bits >= 8) { bits -= 8; out.push((acc >> bits) & 0xff); }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return out;
}

function decodeInvoice(request) {
  if (typeof request !== 'string' || request.length > 8000) fail(0, 'request must be a BOLT-11 invoice string');
  try {
    const d = decodeBolt11(request.toLowerCase().replace(/^lightning:/, ''));
    const section = (n) => d.sections.find((s) => s.name === n)?.value;
    const amount = section('amount');
    return { msat: amount === undefined ? null : Number(amount), paymentHash: section('payment_hash') };
  } catch (e) {
    fail(0, `request is not a valid BOLT-11 invoice: ${e.message}`);
  }
}

// ---------- quotes ----------

function toUnit(msat) {
  return opts.unit === 'sat' ? Math.ceil(msat / 1000) : msat;
}
function toMsat(amount) {
  return opts.unit === 'sat' ? amount * 1000 : amount;
}

function mintQuoteJson(q) {
  return { quote: q.quote, request: q.request, amount: q.amount, unit: q.unit, state: q.state, expiry: q.expiry };
}

function meltQuoteJson(q) {
  const j = {
    quote: q.quote, request: q.request, amount: q.amount, unit: q.unit, fee_reserve: q.fee_reserve,
    state: q.state, expiry: q.expiry, payment_preimage: q.payment_preimage ?? null,
  };
  if (q.change && q.change.length) j.change = q.change;
  return j;
}

function postMintQuote(body) {
  if (body.unit !== opts.unit) fail(11013, `unit ${body.unit} is not supported`);
  const amount = amountOf(body.amount, 'mint quote');
  if (amount > opts.maxAmount) fail(11006, `amount ${amount} is above ${opts.maxAmount}`);
  const preimage = randomBytes(32).toString('hex');
  const paymentHash = sha256hex(Buffer.from(preimage, 'hex'));
  state.preimages[paymentHash] = preimage;
  const description = typeof body.description === 'string' ? body.description.slice(0, 600) : 'fleetmesh cashu sim';
  const q = {
    quote: uuidv7(), amount, unit: opts.unit, state: 'UNPAID', expiry: now() + opts.quoteExpiry,
    paymentHash,
    request: encodeInvoice({ msat: toMsat(amount), paymentHash, description, expiry: opts.quoteExpiry }),
  };
  state.mintQuotes[q.quote] = q;
  const answer = mintQuoteJson(q);
  if (opts.autoPay) q.state = 'PAID'; // the fake payer pays right after the quote is handed out
  return answer;
}

function mintQuote(id) {
  const q = state.mintQuotes[id];
  if (!q) fail(0, `mint quote ${id} is not known`);
  return q;
}

function postMint(body) {
  const q = mintQuote(body.quote);
  if (q.state === 'ISSUED') fail(20002, 'quote has already been issued');
  if (q.state !== 'PAID') fail(q.expiry < now() ? 20007 : 20001, q.expiry < now() ? 'quote is expired' : 'quote request is not paid');
  checkOutputs(body.outputs);
  const sum = body.outputs.reduce((a, o) => a + o.amount, 0);
  if (sum !== q.amount) fail(11005, `outputs sum to ${sum}, the quote is for ${q.amount}`);
  const signatures = body.outputs.map((o) => sign(o, o.amount));
  q.state = 'ISSUED';
  return { signatures };
}

function postMeltQuote(body) {
  if (body.unit !== opts.unit) fail(11013, `unit ${body.unit} is not supported`);
  const inv = decodeInvoice(body.request);
  if (inv.msat === null) fail(11011, 'amountless invoices are not supported');
  const amount = toUnit(inv.msat);
  if (amount <= 0 || amount > opts.maxAmount) fail(11006, `amount ${amount} is outside 1..${opts.maxAmount}`);
  const internal = Object.values(state.mintQuotes).find((m) => m.request === body.request);
  const q = {
    quote: uuidv7(), request: body.request, amount, unit: opts.unit,
    fee_reserve: internal ? 0 : opts.feeReserve, state: 'UNPAID', expiry: now() + opts.quoteExpiry,
    payment_preimage: null, paymentHash: inv.paymentHash, msat: inv.msat, internal: internal?.quote ?? null,
  };
  state.meltQuotes[q.quote] = q;
  return meltQuoteJson(q);
}

function meltQuote(id) {
  const q = state.meltQuotes[id];
  if (!q) fail(0, `melt quote ${id} is not known`);
  return q;
}

// test-controlled behaviour of the next melt's fake payment: 'fail' or 'pending'
let nextMelt = null;

function postMelt(body) {
  const q = meltQuote(body.quote);
  if (q.state === 'PAID') fail(20006, 'invoice already paid');
  if (q.state === 'PENDING') fail(20005, 'quote is pending');
  if (Object.values(state.meltQuotes).some((o) => o !== q && o.state === 'PAID' && o.request === q.request)) {
    fail(20006, 'invoice already paid');
  }
  const outputs = body.outputs ?? [];
  checkOutputs(outputs, { blank: true });
  const { total, fee, ys } = checkInputs(body.inputs, outputs, q.quote);
  if (total - fee < q.amount + q.fee_reserve) {
    fail(11005, `inputs ${total} minus fees ${fee} do not cover amount ${q.amount} plus fee reserve ${q.fee_reserve}`);
  }
  if (q.internal && state.mintQuotes[q.internal]?.state !== 'UNPAID') fail(20006, 'invoice already paid');
  const behaviour = nextMelt;
  nextMelt = null;
  if (behaviour === 'fail') {
    fail(20004, 'Lightning payment failed (simulated)');
  }
  q.inputs = body.inputs;
  q.ys = ys;
  q.outputs = outputs;
  q.excess = total - fee - q.amount;
  if (behaviour === 'pending') {
    for (const y of ys) state.pending[y] = q.quote;
    q.state = 'PENDING';
    return meltQuoteJson(q);
  }
  settleMelt(q, true);
  return meltQuoteJson(q);
}

function settleMelt(q, paid) {
  if (!paid) {
    for (const y of q.ys) delete state.pending[y];
    q.state = 'UNPAID';
    return;
  }
  const lnFee = q.internal ? 0 : Math.min(opts.lnFee, q.fee_reserve);
  markSpent(q.inputs, q.ys);
  if (q.internal) state.mintQuotes[q.internal].state = 'PAID';
  const preimage = state.preimages[q.paymentHash] ?? randomBytes(32).toString('hex');
  q.payment_preimage = preimage;
  q.state = 'PAID';
  state.paid.push({ request: q.request, amount_msat: q.msat, preimage, quote: q.quote });
  const change = q.excess - lnFee;
  q.change = [];
  if (change > 0 && q.outputs.length) {
    const amounts = splitPow2(change).sort((a, b) => b - a).slice(0, q.outputs.length).sort((a, b) => a - b);
    q.change = amounts.map((a, i) => sign(q.outputs[i], a));
  }
  delete q.inputs;
}

function postSwap(body) {
  checkOutputs(body.outputs);
  const { total, fee, ys } = checkInputs(body.inputs, body.outputs);
  const out = body.outputs.reduce((a, o) => a + o.amount, 0);
  if (total - fee !== out) fail(11005, `inputs ${total} minus fees ${fee} != outputs ${out}`);
  markSpent(body.inputs, ys);
  return { signatures: body.outputs.map((o) => sign(o, o.amount)) };
}

function postCheckstate(body) {
  if (!Array.isArray(body.Ys) || body.Ys.length > MAX_INPUTS) fail(0, `Ys must be an array of at most ${MAX_INPUTS}`);
  return {
    states: body.Ys.map((y) => {
      if (!isHex(y, 66)) fail(0, 'Y must be 66 hex characters');
      if (state.spent[y]) return { Y: y, state: 'SPENT', witness: state.spent[y].witness };
      if (state.pending[y]) return { Y: y, state: 'PENDING', witness: null };
      return { Y: y, state: 'UNSPENT', witness: null };
    }),
  };
}

function postRestore(body) {
  if (!Array.isArray(body.outputs) || body.outputs.length > MAX_OUTPUTS) fail(0, `outputs must be an array of at most ${MAX_OUTPUTS}`);
  const outputs = [];
  const signatures = [];
  for (const o of body.outputs) {
    const s = o && state.signed[o.B_];
    if (s) {
      outputs.push(o);
      signatures.push(s);
    }
  }
  return { outputs, signatures };
}

function info() {
  const method = (extra) => ({ method: 'bolt11', unit: opts.unit, min_amount: 1, max_amount: opts.maxAmount, ...extra });
  return {
    name: 'fleetmesh cashu sim',
    pubkey: Buffer.from(secp256k1.getPublicKey(mintInfoKey, true)).toString('hex'),
    version: 'fleetmesh-cashu-sim/0.1',
    description: 'SIMULATED mint for tests: no real money, Lightning is faked',
    time: now(),
    nuts: {
      4: { methods: [method({ options: { description: true } })], disabled: false },
      5: { methods: [method({ options: { amountless: false } })], disabled: false },
      7: { supported: true }, 8: { supported: true }, 9: { supported: true }, 10: { supported: true },
      11: { supported: true }, 12: { supported: true }, 14: { supported: true },
    },
  };
}

// ---------- test controls ----------

const hangNext = [];   // { path, commit }
const failNext = [];   // { path, status }
const hung = [];       // responses we never answer (kept so their sockets stay open)

function testControl(method, p, body) {
  if (method !== 'POST') fail(0, 'test controls are POST');
  let m;
  if ((m = p.match(/^\/test\/pay\/([^/]+)$/))) {
    const q = mintQuote(decodeURIComponent(m[1]));
    if (q.state === 'UNPAID') q.state = 'PAID';
    return mintQuoteJson(q);
  }
  if (p === '/test/hang-next') {
    if (typeof body.path !== 'string') fail(0, 'path required');
    hangNext.push({ path: body.path, commit: body.commit !== false });
    return { ok: true };
  }
  if (p === '/test/fail-next') {
    if (typeof body.path !== 'string') fail(0, 'path required');
    failNext.push({ path: body.path, status: Number.isSafeInteger(body.status) ? body.status : 500 });
    return { ok: true };
  }
  if (p === '/test/fail-melt') { nextMelt = 'fail'; return { ok: true }; }
  if (p === '/test/pend-melt') { nextMelt = 'pending'; return { ok: true }; }
  if ((m = p.match(/^\/test\/settle-melt\/([^/]+)$/))) {
    const q = meltQuote(decodeURIComponent(m[1]));
    if (q.state !== 'PENDING') fail(0, 'melt quote is not pending');
    settleMelt(q, body.paid !== false);
    return meltQuoteJson(q);
  }
  if (p === '/test/preimage') {
    if (!isHex(body.preimage, 64)) fail(0, 'preimage must be 64 lower-case hex');
    state.preimages[sha256hex(Buffer.from(body.preimage, 'hex'))] = body.preimage;
    return { ok: true };
  }
  if (p === '/test/paid') return { paid: state.paid };
  if (p === '/test/hung') return { hung: hung.length };
  fail(0, `no test control ${p}`);
}

// ---------- HTTP ----------

function route(method, p, body) {
  let m;
  if (method === 'GET') {
    if (p === '/v1/info') return info();
    if (p === '/v1/keys') return { keysets: [keysetJson()] };
    if ((m = p.match(/^\/v1\/keys\/([^/]+)$/))) {
      if (decodeURIComponent(m[1]) !== KEYSET_ID) fail(12001, 'keyset is not known');
      return { keysets: [keysetJson()] };
    }
    if (p === '/v1/keysets') {
      const { keys, ...rest } = keysetJson();
      return { keysets: [rest] };
    }
    if ((m = p.match(/^\/v1\/mint\/quote\/bolt11\/([^/]+)$/))) return mintQuoteJson(mintQuote(decodeURIComponent(m[1])));
    if ((m = p.match(/^\/v1\/melt\/quote\/bolt11\/([^/]+)$/))) return meltQuoteJson(meltQuote(decodeURIComponent(m[1])));
  } else if (method === 'POST') {
    if (p.startsWith('/test/')) return testControl(method, p, body);
    switch (p) {
      case '/v1/swap': return postSwap(body);
      case '/v1/mint/quote/bolt11': return postMintQuote(body);
      case '/v1/mint/bolt11': return postMint(body);
      case '/v1/melt/quote/bolt11': return postMeltQuote(body);
      case '/v1/melt/bolt11': return postMelt(body);
      case '/v1/checkstate': return postCheckstate(body);
      case '/v1/restore': return postRestore(body);
      default:
    }
  }
  throw new MintError(0, `no route ${method} ${p}`, 404);
}

function send(res, status, obj) {
  const text = JSON.stringify(obj);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function handle(req, res, raw) {
  const p = new URL(req.url, 'http://x').pathname;
  const fi = failNext.findIndex((f) => f.path === p);
  if (fi >= 0) {
    const [f] = failNext.splice(fi, 1);
    return send(res, f.status, { detail: 'simulated failure', code: 0 });
  }
  const hi = p.startsWith('/test/') ? -1 : hangNext.findIndex((h) => h.path === p);
  const hang = hi >= 0 ? hangNext.splice(hi, 1)[0] : null;
  if (hang && !hang.commit) {
    hung.push(res);
    return undefined;
  }
  let body = {};
  if (req.method === 'POST') {
    try {
      body = raw.length ? JSON.parse(raw) : {};
    } catch {
      return send(res, 400, { detail: 'body is not JSON', code: 0 });
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return send(res, 400, { detail: 'body must be a JSON object', code: 0 });
  }
  // Snapshot, so a refused request leaves no trace even if it changed state before failing.
  const before = JSON.stringify(state);
  let status = 200;
  let answer;
  try {
    answer = route(req.method, p, body);
  } catch (e) {
    state = JSON.parse(before);
    if (e instanceof MintError) {
      status = e.status;
      answer = { detail: e.message, code: e.code };
    } else {
      process.stderr.write(`cashu-mint: ${e.stack}\n`);
      status = 500;
      answer = { detail: `internal error: ${e.message}`, code: 0 };
    }
  }
  persist();
  process.stderr.write(`cashu-mint: ${req.method} ${p} -> ${status}${status === 200 ? '' : ' ' + JSON.stringify(answer)}${hang ? ' (hanging)' : ''}\n`);
  if (hang) {
    hung.push(res);
    return undefined;
  }
  return send(res, status, answer);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  let tooBig = false;
  req.on('data', (c) => {
    if (tooBig) return;
    size += c.length;
    if (size > MAX_BODY) {
      tooBig = true;
      res.setHeader('connection', 'close');
      send(res, 413, { detail: 'request body over 1 MiB', code: 0 });
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (!tooBig) handle(req, res, Buffer.concat(chunks).toString('utf8'));
  });
});

server.listen(opts.port, '127.0.0.1', () => {
  process.stdout.write(`MINT_URL http://127.0.0.1:${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
