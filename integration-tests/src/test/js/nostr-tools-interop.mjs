// Interop check with an independent client: nostr-tools (npm) against a running meshnode.
// usage: node nostr-tools-interop.mjs <ws-url> <http-url>
// Prints one JSON line starting with RESULT; exits non-zero on any failure.
import WebSocket from 'ws'
import { generateSecretKey, getPublicKey, finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'

useWebSocketImplementation(WebSocket) // Node 20 has no global WebSocket

const [wsUrl, httpUrl] = process.argv.slice(2)
if (!wsUrl || !httpUrl) {
  console.error('usage: node nostr-tools-interop.mjs <ws-url> <http-url>')
  process.exit(2)
}

const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 30000)

function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error('timed out: ' + what)), ms)),
  ])
}

function check(condition, message) {
  if (!condition) throw new Error(message)
}

async function main() {
  const sk = generateSecretKey()
  const pk = getPublicKey(sk)
  const now = Math.floor(Date.now() / 1000)
  const topic = 'interop-' + pk.slice(0, 12)

  const relay = await Relay.connect(wsUrl)
  const published = []
  for (let i = 0; i < 3; i++) {
    const ev = finalizeEvent({ kind: 1, created_at: now - 30 + i, tags: [['t', topic]], content: 'nostr-tools note ' + i + ' ✓ "quoted"\n' }, sk)
    const reason = await relay.publish(ev) // rejects on OK false
    check(typeof reason === 'string', 'publish resolved without a reason string')
    published.push(ev.id)
  }

  // a forged event must be refused: publish() rejects with the relay's reason
  const good = finalizeEvent({ kind: 1, created_at: now, tags: [], content: 'to be forged' }, sk)
  const forged = { ...good, sig: (good.sig[0] === '0' ? '1' : '0') + good.sig.slice(1) }
  let forgedReason = null
  try {
    await relay.publish(forged)
  } catch (e) {
    forgedReason = String(e.message ?? e)
  }
  check(forgedReason !== null, 'a forged event was accepted')

  // NIP-42 + NIP-70: a protected event is refused until the connection authenticates as its author
  const prot = finalizeEvent({ kind: 1, created_at: now, tags: [['-']], content: 'protected' }, sk)
  let protectedBeforeAuth = null
  try {
    await relay.publish(prot)
  } catch (e) {
    protectedBeforeAuth = String(e.message ?? e)
  }
  check(protectedBeforeAuth !== null, 'a protected event was accepted before AUTH')
  const authReason = await withTimeout(relay.auth(async (template) => finalizeEvent(template, sk)), 15000, 'AUTH')
  await relay.publish(prot)

  // stored events, EOSE, then a live one
  const stored = []
  const live = []
  let eose = false
  let closedReason = null
  let resolveEose, resolveLive
  const eoseSeen = new Promise((r) => (resolveEose = r))
  const liveSeen = new Promise((r) => (resolveLive = r))
  const sub = relay.subscribe([{ kinds: [1], authors: [pk], '#t': [topic] }], {
    eoseTimeout: 60000, // so that only a real EOSE counts
    onevent(ev) {
      check(verifyEvent(ev), 'the relay sent an event whose signature does not verify: ' + ev.id)
      if (eose) {
        live.push(ev.id)
        resolveLive()
      } else {
        stored.push(ev.id)
      }
    },
    oneose() {
      eose = true
      resolveEose()
    },
    onclose(reason) {
      closedReason = reason
    },
  })
  await withTimeout(eoseSeen, 15000, 'EOSE')

  const publisher = await Relay.connect(wsUrl)
  const liveEvent = finalizeEvent({ kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [['t', topic]], content: 'live' }, sk)
  await publisher.publish(liveEvent)
  await withTimeout(liveSeen, 15000, 'live event')

  const count = await withTimeout(relay.count([{ kinds: [1], authors: [pk] }], {}), 15000, 'COUNT')

  const closedBeforeEnd = closedReason // sub.close() below reports its own reason
  sub.close()
  publisher.close()
  relay.close()

  const res = await fetch(httpUrl, { headers: { Accept: 'application/nostr+json' } })
  check(res.ok, 'NIP-11 status ' + res.status)
  const info = await res.json()

  clearTimeout(deadline)
  console.log('RESULT ' + JSON.stringify({
    ok: true,
    pubkey: pk,
    published,
    stored,
    eose,
    live,
    liveId: liveEvent.id,
    forgedReason,
    protectedId: prot.id,
    protectedBeforeAuth,
    authReason,
    closedReason: closedBeforeEnd,
    count,
    nip11: {
      name: info.name,
      supported_nips: info.supported_nips,
      contentType: res.headers.get('content-type'),
      cors: {
        origin: res.headers.get('access-control-allow-origin'),
        headers: res.headers.get('access-control-allow-headers'),
        methods: res.headers.get('access-control-allow-methods'),
      },
    },
  }))
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error('FAIL: ' + (e && e.stack ? e.stack : e))
    process.exit(1)
  },
)
