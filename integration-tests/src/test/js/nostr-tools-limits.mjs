// nostr-tools (npm) against a meshnode with client limits on: one fresh key publishes a burst; the relay's
// OK false "rate-limited: ..." reaches nostr-tools as a rejected publish.
// usage: node nostr-tools-limits.mjs <ws-url> <events>
// Prints one JSON line starting with RESULT; exits non-zero on any failure.
import WebSocket from 'ws'
import { generateSecretKey, getPublicKey, finalizeEvent } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'

useWebSocketImplementation(WebSocket) // Node 20 has no global WebSocket

const [wsUrl, count] = process.argv.slice(2)
const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 30000)

async function main() {
  const sk = generateSecretKey()
  const pk = getPublicKey(sk)
  const now = Math.floor(Date.now() / 1000)
  const relay = await Relay.connect(wsUrl)
  const events = []
  for (let i = 0; i < Number(count); i++) {
    events.push(finalizeEvent({ kind: 1, created_at: now, tags: [], content: 'burst ' + i }, sk))
  }
  const results = await Promise.allSettled(events.map(e => relay.publish(e)))
  const accepted = []
  const refused = []
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') accepted.push(events[i].id)
    else refused.push(String(r.reason && r.reason.message !== undefined ? r.reason.message : r.reason))
  })
  relay.close()
  clearTimeout(deadline)
  console.log('RESULT ' + JSON.stringify({ pubkey: pk, accepted, refused }))
}

main().catch(e => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e))
  process.exit(1)
})
