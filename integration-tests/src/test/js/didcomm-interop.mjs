// DIDComm v2 against didcomm-node (SICPA's didcomm-rust compiled to WASM), an implementation nobody here wrote.
//   node didcomm-interop.mjs send <http base of a node>          Trust Pings to POST /didcomm in every envelope
//   node didcomm-interop.mjs party <party.json>                  a did:peer:2 (Ed25519 #key-1, X25519 #key-2,
//                                                                secp256k1 #key-3) and its secrets, for "open"
//   node didcomm-interop.mjs open <party.json> <in.json> <out.json>
//                                                                unpacks what Java packed to the party (in.json:
//                                                                {did, doc, messages}), packs to Java's DID in turn
// Each prints one line "RESULT <json>".
import crypto from 'node:crypto';
import fs from 'node:fs';
import dc from 'didcomm-node';
const { Message } = dc;

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function b58enc(buf) {
  let n = BigInt('0x' + (Buffer.from(buf).toString('hex') || '0')); let s = '';
  while (n > 0n) { s = B58[Number(n % 58n)] + s; n /= 58n; }
  for (const b of buf) { if (b === 0) s = '1' + s; else break; }
  return s;
}
function b58dec(s) {
  let n = 0n; for (const c of s) n = n * 58n + BigInt(B58.indexOf(c));
  let hex = n.toString(16); if (hex.length % 2) hex = '0' + hex;
  return Buffer.concat([Buffer.alloc(s.match(/^1*/)[0].length), Buffer.from(hex, 'hex')]);
}
const b64u = (b) => Buffer.from(b).toString('base64url');
const PREFIX = { X25519: [0xec, 0x01], Ed25519: [0xed, 0x01], secp256k1: [0xe7, 0x01] };
const multikey = (crv, raw) => 'z' + b58enc(Buffer.concat([Buffer.from(PREFIX[crv]), Buffer.from(raw)]));
const SECP256K1_SPKI = Buffer.from('3036301006072a8648ce3d020106052b8104000a032200', 'hex');

/** A Multikey (publicKeyMultibase) as the public JWK didcomm-rust reads. */
function jwkOf(mb) {
  const b = b58dec(mb.slice(1));
  if (b[0] === 0xec && b[1] === 0x01) return { kty: 'OKP', crv: 'X25519', x: b64u(b.subarray(2)) };
  if (b[0] === 0xed && b[1] === 0x01) return { kty: 'OKP', crv: 'Ed25519', x: b64u(b.subarray(2)) };
  if (b[0] === 0xe7 && b[1] === 0x01) {
    const j = crypto.createPublicKey({ key: Buffer.concat([SECP256K1_SPKI, b.subarray(2)]), format: 'der', type: 'spki' })
      .export({ format: 'jwk' });
    return { kty: 'EC', crv: 'secp256k1', x: j.x, y: j.y };
  }
  throw new Error('unknown multikey ' + mb);
}

/** A DID document as served (relative ids, Multikey) in the form didcomm-rust wants: absolute ids, JsonWebKey2020. */
function forDidcommRust(served, did) {
  const abs = (r) => (r.startsWith('#') ? did + r : r);
  return {
    id: did,
    verificationMethod: served.verificationMethod.map((m) => ({ id: abs(m.id), type: 'JsonWebKey2020', controller: did,
      publicKeyJwk: m.publicKeyJwk || jwkOf(m.publicKeyMultibase) })),
    authentication: (served.authentication || []).map(abs),
    keyAgreement: (served.keyAgreement || []).map(abs),
    service: [],
  };
}

function newParty() {
  const gen = (type, opts) => crypto.generateKeyPairSync(type, opts).privateKey.export({ format: 'jwk' });
  const ed = gen('ed25519'), x = gen('x25519'), k1 = gen('ec', { namedCurve: 'secp256k1' });
  const y = Buffer.from(k1.y, 'base64url');
  const k1Compressed = Buffer.concat([Buffer.from([y[31] & 1 ? 3 : 2]), Buffer.from(k1.x, 'base64url')]);
  const did = 'did:peer:2.V' + multikey('Ed25519', Buffer.from(ed.x, 'base64url')) + '.E'
    + multikey('X25519', Buffer.from(x.x, 'base64url')) + '.V' + multikey('secp256k1', k1Compressed);
  const pub = (j) => (j.kty === 'EC' ? { kty: 'EC', crv: j.crv, x: j.x, y: j.y } : { kty: 'OKP', crv: j.crv, x: j.x });
  const keys = [ed, x, k1];
  const doc = {
    id: did,
    verificationMethod: keys.map((k, i) => ({ id: `${did}#key-${i + 1}`, type: 'JsonWebKey2020', controller: did, publicKeyJwk: pub(k) })),
    authentication: [did + '#key-1', did + '#key-3'], keyAgreement: [did + '#key-2'], service: [],
  };
  const secrets = keys.map((k, i) => ({ id: `${did}#key-${i + 1}`, type: 'JsonWebKey2020', privateKeyJwk: k }));
  return { did, doc, secrets };
}

const resolverOf = (docs) => ({ resolve: async (did) => docs[did] || null });
const secretsOf = (list) => ({
  get_secret: async (id) => list.find((s) => s.id === id) || null,
  find_secrets: async (ids) => ids.filter((i) => list.some((s) => s.id === i)),
});
const metaOf = (m) => ({ encrypted: m.encrypted, authenticated: m.authenticated, nonRepudiation: m.non_repudiation,
  anonymousSender: m.anonymous_sender, fromKid: m.encrypted_from_kid || null, toKids: m.encrypted_to_kids || [],
  signFrom: m.sign_from || null, signAlg: m.sign_alg || null, encAlg: m.enc_alg_auth || m.enc_alg_anon || null });
const now = () => Math.floor(Date.now() / 1000);

async function send(base) {
  const served = await (await fetch(base + '/.well-known/did.json')).json();
  const long = served.id;
  const short = served.alsoKnownAs.find((a) => a.startsWith('did:peer:4') && a !== long);
  const endpoint = new URL(new URL(served.service.find((s) => s.type === 'DIDCommMessaging').serviceEndpoint.uri).pathname, base).href;
  const me = newParty();
  const resolver = resolverOf({ [long]: forDidcommRust(served, long), [short]: forDidcommRust(served, short), [me.did]: me.doc });
  const secrets = secretsOf(me.secrets);
  const results = {};
  async function ping(name, { to = long, from = me.did, signBy = null, options = {}, type = 'https://didcomm.org/trust-ping/2.0/ping', extra = {} }) {
    const r = { id: 'ping-' + (Object.keys(results).length + 1) };
    try {
      const m = new Message({ id: r.id, typ: 'application/didcomm-plain+json', type, from: from || undefined,
        to: [to], created_time: now(), body: { response_requested: true }, return_route: 'all', ...extra });
      const [packed] = await m.pack_encrypted(to, from, signBy, resolver, secrets, options);
      const res = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/didcomm-encrypted+json' }, body: packed });
      r.status = res.status; r.contentType = res.headers.get('content-type'); const body = await res.text();
      if (res.status === 200) {
        const [answer, meta] = await Message.unpack(body, resolver, secrets, {});
        r.answer = answer.as_value(); r.meta = metaOf(meta);
        r.protected = JSON.parse(Buffer.from(JSON.parse(body).protected, 'base64url'));
      } else if (body) {
        r.body = body;
      }
    } catch (e) { r.error = `${e.name}: ${e.message}`; }
    results[name] = r;
  }
  await ping('anoncrypt', { from: null });
  await ping('authcrypt', {});
  await ping('authcrypt short form', { to: short });
  await ping('authcrypt(sign EdDSA)', { signBy: me.did + '#key-1' });
  await ping('anoncrypt(sign ES256K)', { from: null, signBy: me.did + '#key-3', extra: { from: me.did } });
  await ping('anoncrypt(authcrypt)', { options: { protect_sender: true } });
  await ping('anoncrypt(authcrypt(sign))', { signBy: me.did + '#key-1', options: { protect_sender: true } });
  await ping('other type', { type: 'https://example.org/unknown/1.0/hello' });
  await ping('expired', { extra: { expires_time: now() - 60 } });
  return { did: me.did, long, short, results };
}

async function open(partyFile, inFile, outFile) {
  const me = JSON.parse(fs.readFileSync(partyFile, 'utf8'));
  const input = JSON.parse(fs.readFileSync(inFile, 'utf8'));
  const resolver = resolverOf({ [me.did]: me.doc, [input.did]: forDidcommRust(input.doc, input.did) });
  const secrets = secretsOf(me.secrets);
  const opened = {};
  for (const [name, packed] of Object.entries(input.messages)) {
    try {
      const [m, meta] = await Message.unpack(packed, resolver, secrets, {});
      opened[name] = { message: m.as_value(), meta: metaOf(meta) };
    } catch (e) { opened[name] = { error: `${e.name}: ${e.message}` }; }
  }
  const packed = {};
  const msg = (id) => new Message({ id, typ: 'application/didcomm-plain+json', type: 'https://didcomm.org/basicmessage/2.0/message',
    from: me.did, to: [input.did], created_time: now(), body: { content: 'from didcomm-node' } });
  const pack = async (name, f) => { try { packed[name] = await f(); } catch (e) { packed[name] = `ERROR ${e.name}: ${e.message}`; } };
  await pack('signed EdDSA', async () => (await msg('s-eddsa').pack_signed(me.did + '#key-1', resolver, secrets))[0]);
  await pack('signed ES256K', async () => (await msg('s-es256k').pack_signed(me.did + '#key-3', resolver, secrets))[0]);
  for (const enc of ['Xc20pEcdhEsA256kw', 'A256gcmEcdhEsA256kw', 'A256cbcHs512EcdhEsA256kw']) {
    await pack('anoncrypt ' + enc, async () => (await msg('a-' + enc).pack_encrypted(input.did, null, null, resolver, secrets, { enc_alg_anon: enc }))[0]);
  }
  await pack('authcrypt', async () => (await msg('b').pack_encrypted(input.did, me.did, null, resolver, secrets, {}))[0]);
  await pack('anoncrypt(sign)', async () => (await msg('c').pack_encrypted(input.did, null, me.did + '#key-1', resolver, secrets, {}))[0]);
  await pack('authcrypt(sign)', async () => (await msg('d').pack_encrypted(input.did, me.did, me.did + '#key-3', resolver, secrets, {}))[0]);
  await pack('anoncrypt(authcrypt)', async () => (await msg('e').pack_encrypted(input.did, me.did, null, resolver, secrets, { protect_sender: true }))[0]);
  await pack('anoncrypt(authcrypt(sign))', async () => (await msg('f').pack_encrypted(input.did, me.did, me.did + '#key-1', resolver, secrets, { protect_sender: true }))[0]);
  fs.writeFileSync(outFile, JSON.stringify(packed));
  return { opened, packed: Object.keys(packed) };
}

const [mode, ...args] = process.argv.slice(2);
let result;
if (mode === 'send') result = await send(args[0].replace(/\/$/, ''));
else if (mode === 'party') { const p = newParty(); fs.writeFileSync(args[0], JSON.stringify(p)); result = { did: p.did }; }
else if (mode === 'open') result = await open(args[0], args[1], args[2]);
else throw new Error('mode: send | party | open');
console.log('RESULT ' + JSON.stringify(result));
