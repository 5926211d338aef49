// NIP-66 interop: nostr-tools (npm) reads a meshnode's relay discovery (30166) and monitor announcement (10166)
// events, checks their signatures, and publishes a third-party monitor's 30166 about another relay.
// usage: node monitor-interop.mjs <ws-url> <monitor-pubkey> <relay-url-to-describe>
// Prints one JSON line starting with RESULT; exits non-zero on any failure.
import WebSocket from 'ws'
import { generateSecretKey, getPublicKey, finalizeEvent, verifyEvent } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'

useWebSocketImplementation(WebSocket) // Node 20 has no global WebSocket

const [wsUrl, monitor, described] = process.argv.slice(2)
if (!wsUrl || !monitor || !described) {
  console.error('usage: node monitor-interop.mjs <ws-url> <monitor-pubkey> <relay-url-to-describe>')
  process.exit(2)
}

const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 30000)

async function main() {
  const relay = await Relay.connect(wsUrl)
  const events = []
  await new Promise((resolve, reject) => {
    const sub = relay.subscribe([{ kinds: [30166, 10166], authors: [monitor] }], {
      eoseTimeout: 20000,
      onevent(ev) {
        events.push({ ...ev, verified: verifyEvent({ ...ev }) })
      },
      oneose() {
        resolve() // first: closing reports "closed by caller" to onclose
        sub.close()
      },
      onclose(reason) {
        reject(new Error('CLOSED ' + reason))
      },
    })
  })

  // another monitor's word about the same relay: a hint for the node, never evidence
  const sk = generateSecretKey()
  const thirdParty = finalizeEvent({
    kind: 30166,
    created_at: Math.floor(Date.now() / 1000),
    tags: [['d', described], ['rtt-open', '999'], ['n', 'clearnet'], ['N', '1'], ['R', '!auth']],
    content: '',
  }, sk)
  await relay.publish(thirdParty)
  relay.close()

  clearTimeout(deadline)
  console.log('RESULT ' + JSON.stringify({ ok: true, events, thirdParty: thirdParty.id, thirdPartyPubkey: getPublicKey(sk) }))
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error('FAIL: ' + (e && e.stack ? e.stack : e))
    process.exit(1)
  },
)
