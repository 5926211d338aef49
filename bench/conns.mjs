// Opens N client WebSockets to a relay at once and holds them (docs/BENCHMARKS.md "What an idle connection costs"):
// counts those opened, closed (with close code and reason) and the NOTICEs received, e.g. to see the connection bounds
// refuse the ones past them. Needs ws@8 where Node resolves it (run it from a directory with `npm install ws@8`).
// usage: node conns.mjs URL N [hold [MS=20000]]
import WebSocket from 'ws';
const [url, n] = [process.argv[2], +process.argv[3]];
const socks = []; let opened = 0, closed = 0, notices = {};
for (let i = 0; i < n; i++) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  ws.on('open', () => opened++);
  ws.on('message', d => { const m = JSON.parse(d.toString()); if (m[0] === 'NOTICE') notices[m[1]] = (notices[m[1]] || 0) + 1; });
  ws.on('close', (code, reason) => { closed++; notices['close ' + code + ' ' + reason] = (notices['close ' + code + ' ' + reason] || 0) + 1; });
  ws.on('error', () => {});
  socks.push(ws);
  if (i % 200 === 199) await new Promise(r => setTimeout(r, 50));
}
await new Promise(r => setTimeout(r, 3000));
console.log(JSON.stringify({ opened, closed, notices }));
if (process.argv[4] === 'hold') { console.log('holding'); await new Promise(r => setTimeout(r, +process.argv[5] || 20000)); }
process.exit(0);
