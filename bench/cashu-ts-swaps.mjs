// cashu-ts-swaps.mjs: the baseline for `./meshnode bench cashu --mint URL` (bench/cashu.sh runs both on the
// same mint): the same swap round trip done by @cashu/cashu-ts in ONE Node process, so that process start-up is
// not in the figure. Alice holds only 2-sat proofs; each round she sends 1 (a swap: 1 input -> 1 sent + 1 change,
// token encoded V4 with the DLEQ proofs) and Bob receives the token (decode, DLEQ check, swap 1 -> 1), then Bob
// receives Alice's change token the same way. fetch is wrapped to time the HTTP calls (body read included), so the
// client-side share is the operation's time outside them.
//
//   node cashu-ts-swaps.mjs <mintUrl> [rounds=300] [warmupRounds=50]
// Prints the figures on stderr and one JSON line on stdout.

import { Wallet, getEncodedToken } from '@cashu/cashu-ts';

console.log = (...a) => process.stderr.write(a.join(' ') + '\n');
console.info = console.log;
console.debug = () => {};

const [url, roundsArg, warmArg] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: node cashu-ts-swaps.mjs <mintUrl> [rounds] [warmupRounds]\n');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 300);
const warm = Number(warmArg ?? 50);

let httpMs = 0;
let swaps = 0;
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const t = performance.now();
  try {
    const res = await realFetch(input, init);
    const body = await res.arrayBuffer();
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  } finally {
    httpMs += performance.now() - t;
    if (String(input?.url ?? input).endsWith('/v1/swap')) swaps++;
  }
};

const num = (x) => Number(typeof x === 'object' && x !== null && 'toNumber' in x ? x.toNumber() : x);
const total = (proofs) => proofs.reduce((a, p) => a + num(p.amount), 0);

const alice = new Wallet(url, { unit: 'sat' });
await alice.loadMint();
const bob = new Wallet(url, { unit: 'sat' });
await bob.loadMint();

const funds = [];
const t0 = performance.now();
for (let i = 0; i < rounds + warm; i++) {
  const q = await alice.createMintQuoteBolt11(2);
  let s = q;
  for (let k = 0; k < 2000 && s.state !== 'PAID'; k++) {
    await new Promise((r) => setTimeout(r, 5));
    s = await alice.checkMintQuoteBolt11(q.quote);
  }
  const proofs = await alice.mintProofsBolt11(2, q.quote);
  if (proofs.length !== 1 || total(proofs) !== 2) throw new Error(`expected one 2-sat proof, got ${total(proofs)}`);
  funds.push(proofs[0]);
}
process.stderr.write(`funded: ${rounds + warm} quotes of 2 sat in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);

// the HTTP floor: a round trip to the mint that does no crypto (GET /v1/keysets, parsed)
const floor = [];
for (let i = -warm; i < rounds; i++) {
  const t = performance.now();
  await alice.mint.getKeySets();
  if (i >= 0) floor.push(performance.now() - t);
}

async function receive(token, lat, http, at) {
  const h = httpMs;
  const t = performance.now();
  const got = await bob.receive(token);
  const dt = performance.now() - t;
  if (total(got) !== 1) throw new Error(`received ${total(got)}, expected 1`);
  if (lat) {
    lat[at] = dt;
    http[at] = httpMs - h;
  }
}

const send = new Array(rounds), sendHttp = new Array(rounds);
const recv = new Array(2 * rounds), recvHttp = new Array(2 * rounds);
let start = 0, swapsBefore = 0;
for (let i = -warm; i < rounds; i++) {
  if (i === 0) {
    start = performance.now();
    swapsBefore = swaps;
  }
  const input = funds.pop();
  const h = httpMs;
  const t = performance.now();
  const { keep, send: out } = await alice.send(1, [input]);
  const token = getEncodedToken({ mint: url, unit: 'sat', proofs: out });
  const dt = performance.now() - t;
  if (total(out) !== 1 || total(keep) !== 1) throw new Error('the send did not split 2 into 1 + 1');
  if (i >= 0) {
    send[i] = dt;
    sendHttp[i] = httpMs - h;
  }
  const at = 2 * Math.max(i, 0);
  await receive(token, i >= 0 ? recv : null, recvHttp, at);
  const change = getEncodedToken({ mint: url, unit: 'sat', proofs: keep });
  await receive(change, i >= 0 ? recv : null, recvHttp, at + 1);
}
const wall = (performance.now() - start) / 1000;
const n = swaps - swapsBefore;
if (n !== 3 * rounds) throw new Error(`expected ${3 * rounds} swaps, counted ${n}`);

const sum = (a) => a.reduce((x, y) => x + y, 0);
const pct = (a, p) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.max(0, Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1))];
};
const r = {
  swaps_per_s: +(n / wall).toFixed(1),
  send_p50_ms: +pct(send, 50).toFixed(2),
  send_p99_ms: +pct(send, 99).toFixed(2),
  receive_p50_ms: +pct(recv, 50).toFixed(2),
  receive_p99_ms: +pct(recv, 99).toFixed(2),
  send_client_share: +(1 - sum(sendHttp) / sum(send)).toFixed(3),
  receive_client_share: +(1 - sum(recvHttp) / sum(recv)).toFixed(3),
  send_client_ms: +((sum(send) - sum(sendHttp)) / rounds).toFixed(3),
  receive_client_ms: +((sum(recv) - sum(recvHttp)) / (2 * rounds)).toFixed(3),
  http_floor_p50_ms: +pct(floor, 50).toFixed(2),
};
process.stderr.write(`cashu-ts swap round trip against ${url}, ${rounds} rounds (1 send swap + 2 receive swaps each)\n`
  + `  swaps/s ${r.swaps_per_s}\n`
  + `  send 1:  p50 ${r.send_p50_ms} ms  p99 ${r.send_p99_ms} ms  client side ${(100 * r.send_client_share).toFixed(0)}%\n`
  + `  receive: p50 ${r.receive_p50_ms} ms  p99 ${r.receive_p99_ms} ms  client side ${(100 * r.receive_client_share).toFixed(0)}%\n`
  + `  HTTP floor (GET /v1/keysets): p50 ${r.http_floor_p50_ms} ms\n`);
process.stdout.write(JSON.stringify(r) + '\n');
