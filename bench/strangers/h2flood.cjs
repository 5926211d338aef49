// SESSIONS HTTP/2 clear-text sessions x PER GET PATH (Authorization AUTH) to HOST:PORT (env; HOST defaults to a non-loopback address); counts statuses and error codes
// usage: PORT=P HOST=H node h2flood.cjs SESSIONS PER [PATH] [AUTH]
const http2 = require('http2');
const sessions = +process.argv[2], perSession = +process.argv[3], path = process.argv[4] || '/mesh/status', auth = process.argv[5] || 'Bearer x';
const port = process.env.PORT || 7777, host = process.env.HOST || '192.0.2.2';
let done = 0, errs = 0, started = 0; const t0 = Date.now(); const st = {}, ec = {}; let sessErr = 0, sessClose = 0, goaway = 0;
for (let i = 0; i < sessions; i++) {
  const s = http2.connect('http://' + host + ':' + port);
  s.on('error', e => { sessErr++; ec['session:' + (e.code||e.message)] = (ec['session:' + (e.code||e.message)]||0)+1; });
  s.on('close', () => sessClose++); s.on('goaway', (c) => { goaway++; ec['goaway:'+c]=(ec['goaway:'+c]||0)+1; });
  s.on('remoteSettings', x => { if (i === 0) console.log('server settings', JSON.stringify(x)); });
  for (let j = 0; j < perSession; j++) {
    started++;
    const r = s.request({':path': path, 'authorization': auth});
    r.on('response', h => { st[h[':status']] = (st[h[':status']]||0)+1; }); r.on('data', () => {}); r.on('end', () => { done++; });
    r.on('error', e => { errs++; const k = e.code + (r.rstCode !== undefined ? '/rst' + r.rstCode : ''); ec[k] = (ec[k]||0)+1; });
    r.end();
  }
}
const iv = setInterval(() => { console.log(((Date.now()-t0)/1000).toFixed(1)+'s', 'started', started, 'done', done, 'errs', errs, 'status', JSON.stringify(st), 'errcodes', JSON.stringify(ec), 'sessErr', sessErr, 'sessClose', sessClose);
  if (done + errs >= started) { clearInterval(iv); process.exit(0);} }, 2000);
