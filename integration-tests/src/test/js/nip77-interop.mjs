// NIP-77 interop with an independent client: nostr-tools' NegentropySync (lib/esm/nip77.js,
// imported by path) reconciles a local set against a running meshnode.
// usage: node nip77-interop.mjs <ws-url> <input.json>   input: {"filter":{...},"local":[[created_at,id],...]}
// Prints one JSON line starting with RESULT ({"have":[...],"need":[...]}); exits non-zero on failure.
import WebSocket from 'ws'
import { readFileSync } from 'node:fs'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { NegentropySync, NegentropyStorageVector } from './node_modules/nostr-tools/lib/esm/nip77.js'

useWebSocketImplementation(WebSocket)

const [wsUrl, inputFile] = process.argv.slice(2)
const input = JSON.parse(readFileSync(inputFile, 'utf8'))
const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 30000)

const relay = await Relay.connect(wsUrl)
const storage = new NegentropyStorageVector()
for (const [createdAt, id] of input.local) storage.insert(createdAt, id)
storage.seal()

const have = []
const need = []
const reason = await new Promise(resolve => {
  const sync = new NegentropySync(relay, storage, input.filter, {
    onhave: id => have.push(id),
    onneed: id => need.push(id),
    onclose: r => resolve(r ?? null),
  })
  sync.start()
})
clearTimeout(deadline)
relay.close()
if (reason) {
  console.error('FAIL: the sync closed with ' + reason)
  process.exit(1)
}
console.log('RESULT ' + JSON.stringify({ have, need }))
process.exit(0)
