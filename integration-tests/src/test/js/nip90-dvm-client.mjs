// A NIP-90 customer written with nostr-tools (npm): posts one kind 5600 job request and collects the
// kind 7000 feedback and the kind 6600 result that tag it, until a result and "success", or an "error".
// usage: node nip90-dvm-client.mjs <ws-url> <i-tag JSON> [<extra tags JSON array>] [<provider pubkey>]
// Prints one JSON line starting with RESULT; exits non-zero on any failure.
import WebSocket from 'ws'
import { generateSecretKey, getPublicKey, finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'

useWebSocketImplementation(WebSocket)

const [wsUrl, iJson, extraJson, provider] = process.argv.slice(2)
if (!wsUrl || !iJson) {
  console.error('usage: node nip90-dvm-client.mjs <ws-url> <i-tag JSON> [<extra tags JSON>] [<provider>]')
  process.exit(2)
}
const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 60000)

async function main() {
  const sk = generateSecretKey()
  const pk = getPublicKey(sk)
  const relay = await Relay.connect(wsUrl)
  const tags = [['i', iJson, 'text']].concat(extraJson ? JSON.parse(extraJson) : [])
  if (provider) tags.push(['p', provider])
  const request = finalizeEvent({ kind: 5600, created_at: Math.floor(Date.now() / 1000), tags, content: '' }, sk)
  const events = []
  const done = new Promise((resolve) => {
    relay.subscribe([{ kinds: [7000, 6600], '#e': [request.id] }], {
      onevent(e) {
        if (!verifyEvent(e)) throw new Error('bad signature on ' + e.id)
        events.push(e)
        const status = (e.tags.find((t) => t[0] === 'status') || [])[1]
        const hasResult = events.some((x) => x.kind === 6600)
        if (status === 'error' || (hasResult && events.some((x) => x.kind === 7000 &&
            (x.tags.find((t) => t[0] === 'status') || [])[1] === 'success'))) {
          resolve()
        }
      },
    })
  })
  await relay.publish(request)
  await done
  relay.close()
  events.sort((a, b) => a.created_at - b.created_at)
  console.log('RESULT ' + JSON.stringify({ customer: pk, request, events }))
  clearTimeout(deadline)
  process.exit(0)
}

main().catch((e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e))
  process.exit(1)
})
