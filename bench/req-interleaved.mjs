// Two relays, one client, blocks of the same REQs alternating between them (docs/BENCHMARKS.md "Fifteenth session").
// A machine whose speed drifts by a third within the hour (this one) makes consecutive runs incomparable; two relays
// running side by side, each shape's REQs sent in blocks to one then the other (the order alternating per block),
// each block the same filters for both, compare them under the same conditions. Both should be warm: WARM REQs of the
// shape go to each before the timed blocks.
// usage: NODE_PATH=<dir holding ws@8> node bench/req-interleaved.mjs PORT_A PORT_B CORPUS.jsonl SHAPES [BLOCKS=10]
//          [BLOCK=300] [WARM=1000] [SEED=1]
//   SHAPES: comma-separated of limit0, authors, kinds, #e, #p, window, ids (the shapes of the shared tools'
//   req-latency.mjs, parameters drawn from CORPUS the same way). DEFLATE=1 offers permessage-deflate.
// Prints one JSON line per shape: p50/p90/p99/mean ms for A and B, B/A at p50, and in how many blocks B's median was
// lower than A's.
import { createRequire } from 'node:module';
import fs from 'node:fs';
const require = createRequire(import.meta.url);
const WebSocket = require('ws');
const [pa, pb, corpus, shapesArg, blocksArg = '10', blockArg = '300', warmArg = '1000', seedArg = '1'] = process.argv.slice(2);
const BLOCKS = +blocksArg, BLOCK = +blockArg, WARM = +warmArg;
let seed = +seedArg >>> 0 || 1;
const rand = () => { seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0; return seed / 4294967296; };
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
const events = fs.readFileSync(corpus, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const ids = events.map((e) => e.id);
const authors = [...new Set(events.map((e) => e.pubkey))];
const eTags = [...new Set(events.flatMap((e) => e.tags.filter((t) => t[0] === 'e').map((t) => t[1])))];
const pTags = [...new Set(events.flatMap((e) => e.tags.filter((t) => t[0] === 'p').map((t) => t[1])))];
const kinds = [...new Set(events.map((e) => e.kind))];
const times = events.map((e) => e.created_at).sort((a, b) => a - b);
const tMin = times[0], tMax = times[times.length - 1];
const WINDOW = 7200;
const shapes = {
  'limit0': () => ({ limit: 0 }),
  'authors': () => ({ authors: [pick(authors)], limit: 100 }),
  'kinds': () => ({ kinds: [pick(kinds)], limit: 100 }),
  '#e': () => ({ '#e': [pick(eTags)], limit: 100 }),
  '#p': () => ({ '#p': [pick(pTags)], limit: 100 }),
  'window': () => { const s = tMin + Math.floor(rand() * (tMax - tMin - WINDOW)); return { since: s, until: s + WINDOW, limit: 500 }; },
  'ids': () => ({ ids: Array.from({ length: 10 }, () => pick(ids)) }),
};
async function conn(port) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { maxPayload: 64 << 20, perMessageDeflate: process.env.DEFLATE === '1' });
  await new Promise((res, rej) => { ws.on('open', res); ws.on('error', rej); });
  const c = { ws, waiting: null, n: 0 };
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (!c.waiting || m[1] !== c.waiting.sub) return;
    if (m[0] === 'EVENT') c.waiting.count++;
    else if (m[0] === 'EOSE' || m[0] === 'CLOSED') { const w = c.waiting; c.waiting = null; w.resolve(m[0]); }
  });
  c.query = (filter) => new Promise((resolve) => {
    const sub = 's' + (c.n++);
    const w = { sub, count: 0, resolve: null }; c.waiting = w;
    const t0 = process.hrtime.bigint();
    w.resolve = (kind) => { const ms = Number(process.hrtime.bigint() - t0) / 1e6; ws.send(JSON.stringify(['CLOSE', sub])); resolve({ ms, count: w.count }); };
    ws.send(JSON.stringify(['REQ', sub, filter]));
  });
  return c;
}
const A = await conn(pa), B = await conn(pb);
const pct = (s, p) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
for (const name of shapesArg.split(',')) {
  const gen = shapes[name];
  const warm = Array.from({ length: WARM }, gen);
  for (const f of warm) await A.query(f);
  for (const f of warm) await B.query(f);
  const res = { A: [], B: [] }, blockMed = { A: [], B: [] };
  for (let b = 0; b < BLOCKS; b++) {
    const fs_ = Array.from({ length: BLOCK }, gen);
    const order = b % 2 === 0 ? [['A', A], ['B', B]] : [['B', B], ['A', A]];
    for (const [k, c] of order) {
      const ms = [];
      for (const f of fs_) ms.push((await c.query(f)).ms);
      res[k].push(...ms);
      ms.sort((x, y) => x - y); blockMed[k].push(+pct(ms, 50).toFixed(3));
    }
  }
  const out = { shape: name };
  for (const k of ['A', 'B']) { const s = res[k].sort((x, y) => x - y); out[k] = { p50: +pct(s, 50).toFixed(3), p90: +pct(s, 90).toFixed(3), p99: +pct(s, 99).toFixed(3), mean: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3) }; }
  out.ratioB_A_p50 = +(out.B.p50 / out.A.p50).toFixed(3);
  out.blocksBfaster = blockMed.A.filter((a, i) => blockMed.B[i] < a).length + '/' + BLOCKS;
  console.log(JSON.stringify(out));
}
A.ws.close(); B.ws.close();
