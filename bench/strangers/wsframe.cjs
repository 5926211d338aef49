// N raw WebSocket connections; on each a text frame header announcing LEN bytes, then LEN-1 payload bytes, then nothing;
// counts the upgrade statuses and the close codes the server sends. usage: node wsframe.cjs N LEN HOST PORT [PATH] [LOCAL-ADDRESS]
// Also parses the server's close frame code (counts per code) and HTTP upgrade status.
const net = require('net'), crypto = require('crypto');
const N = +process.argv[2], LEN = +process.argv[3], host = process.argv[4] || '192.0.2.2', port = +(process.argv[5]||18911), path = process.argv[6] || '/', local = process.argv[7];
let up = 0, closed = 0, sent = 0; const codes = {}, hs = {}; const t0 = Date.now();
function one() {
  const s = net.connect({host, port, localAddress: local}, () => {
    s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  });
  let upgraded = false, buf = Buffer.alloc(0), gotClose = false;
  s.on('data', d => {
    buf = Buffer.concat([buf, d]);
    if (!upgraded) { const i = buf.indexOf('\r\n\r\n'); if (i < 0) return; const st = buf.slice(9, 12).toString(); hs[st] = (hs[st]||0)+1;
      if (st !== '101') return; upgraded = true; up++; buf = buf.slice(i + 4);
      const hdr = Buffer.alloc(14); hdr[0] = 0x81; hdr[1] = 0x80 | 127; hdr.writeBigUInt64BE(BigInt(LEN), 2); // mask key 0
      s.write(hdr); const chunk = Buffer.alloc(65536, 0x61); let left = LEN - 1;
      (function pump(){ while (left > 0) { const n = Math.min(left, chunk.length); left -= n; if (!s.write(chunk.subarray(0, n))) { s.once('drain', pump); return; } } sent++; })();
    }
    // parse server frames (unmasked)
    while (buf.length >= 2) { let len = buf[1] & 0x7f, off = 2; if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; } else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
      if (buf.length < off + len) return; const op = buf[0] & 0x0f;
      if (op === 8 && !gotClose) { gotClose = true; const code = len >= 2 ? buf.readUInt16BE(off) : 'none'; const k = code + ' ' + buf.slice(off + 2, off + len).toString(); codes[k] = (codes[k]||0)+1; }
      buf = buf.slice(off + len); }
  });
  s.on('error', () => {}); s.on('close', () => { closed++; if (!gotClose) codes['tcp-close-no-frame'] = (codes['tcp-close-no-frame']||0)+1; });
}
for (let i = 0; i < N; i++) one();
setInterval(() => console.log(((Date.now()-t0)/1000).toFixed(0)+'s', 'upgrade', JSON.stringify(hs), 'up', up, 'fully-sent', sent, 'closed', closed, 'closecodes', JSON.stringify(codes)), 5000);
