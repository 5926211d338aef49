// N keep-alive HTTP/1.1 connections, each GET /.well-known/did.json re-sent every EVERY ms; counts statuses and closes
// usage: node keepalive.cjs N HOST PORT [EVERY]
const net = require('net');
const N = +process.argv[2], host = process.argv[3] || '192.0.2.2', port = +(process.argv[4]||18911), every = +(process.argv[5]||30000);
let open = 0, closed = 0, errs = 0; const st = {}; const socks = []; const ec = {};
const req = 'GET /.well-known/did.json HTTP/1.1\r\nHost: x\r\n\r\n';
function one(){ const s = net.connect({host, port}, () => { open++; s.write(req); });
  s.on('data', d => { const m = d.toString('latin1').match(/HTTP\/1\.1 (\d{3})/g); if (m) for (const x of m) { const c = x.slice(9); st[c] = (st[c]||0)+1; } });
  s.on('error', e => { errs++; ec[e.code]=(ec[e.code]||0)+1; }); s.on('close', () => { closed++; }); socks.push(s); }
let i = 0; const t = setInterval(() => { for (let k = 0; k < 200 && i < N; k++, i++) one(); if (i >= N) clearInterval(t); }, 50);
setInterval(() => { for (const s of socks) if (!s.destroyed) s.write(req); }, every);
const t0 = Date.now();
setInterval(() => console.log(((Date.now()-t0)/1000).toFixed(0)+'s', 'open', open, 'closed', closed, 'errs', errs, JSON.stringify(ec), 'statuses', JSON.stringify(st), 'alive', socks.filter(s=>!s.destroyed).length), 5000);
