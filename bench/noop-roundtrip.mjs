// The REQ {"limit":0} round trip (REQ -> EOSE, then CLOSE), one connection, one at a time: a relay's own per-message
// cost with no store read. Issue 17's goal is its p99 under 1 ms; a few hundred samples mostly measure warm-up (the
// client's JIT and the relay's), so this takes many (docs/BENCHMARKS.md "Fifth session").
// usage: NODE_PATH=<dir with ws> node bench/noop-roundtrip.mjs PORT [TIMED=20000] [WARM=2000]
// DEFLATE=0: do not offer permessage-deflate. Prints one JSON line: p50/p90/p99/p999/max in ms, and the slow ones'
// count (over 1 ms).
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const WebSocket = require('ws');

const [port, timedArg = '20000', warmArg = '2000'] = process.argv.slice(2);
const TIMED = +timedArg, WARM = +warmArg;
const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: process.env.DEFLATE !== '0' });
await new Promise((res, rej) => { ws.on('open', res); ws.on('error', rej); });
let waiting = null;
ws.on('message', (d) => {
  const m = JSON.parse(d.toString());
  if (waiting && m[1] === waiting.sub && (m[0] === 'EOSE' || m[0] === 'CLOSED')) {
    const w = waiting; waiting = null; w.done(m[0]);
  }
});
let n = 0;
const once = () => new Promise((resolve, reject) => {
  const sub = 'n' + (n++);
  const t0 = process.hrtime.bigint();
  waiting = { sub, done: (kind) => {
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    ws.send(JSON.stringify(['CLOSE', sub]));
    kind === 'EOSE' ? resolve(ms) : reject(new Error('CLOSED instead of EOSE'));
  } };
  ws.send(JSON.stringify(['REQ', sub, { limit: 0 }]));
});
for (let i = 0; i < WARM; i++) await once();
const ms = [];
for (let i = 0; i < TIMED; i++) ms.push(await once());
ws.close();
ms.sort((a, b) => a - b);
const pct = (p) => +ms[Math.min(ms.length - 1, Math.ceil((p / 100) * ms.length) - 1)].toFixed(3);
console.log(JSON.stringify({ port: +port, n: TIMED, warm: WARM, p50_ms: pct(50), p90_ms: pct(90), p99_ms: pct(99),
  p999_ms: pct(99.9), max_ms: +ms[ms.length - 1].toFixed(3), over_1ms: ms.filter((x) => x > 1).length }));
