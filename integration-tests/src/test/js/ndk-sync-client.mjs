// NIP-77 interop with an independent client: @nostr-dev-kit/sync (NDKSync, on NDK 3) reconciles
// the events in an NDK cache against a running meshnode, case by case.
// usage: node ndk-sync-client.mjs <ws-url> <input.json>
//   input: {"cache":[<event>,...],"cases":[{"name":"...","filter":{...},"autoFetch":false},...]}
//   The cache holds the local events of every case; each case's filter selects its own (as NDKSync
//   queries the cache with the sync filter). The package is used as documented: NDKSync.sync with a
//   cache adapter and explicit relayUrls.
//   The package sends NEG-OPEN with an array of filters (NIP-77 has one filter object); the relay
//   accepts both, and the script only counts the NEG-OPENs it sends.
// Prints one line per case starting with RESULT
//   ({"name":..,"have":[..],"need":[..],"fetched":[..],"rounds":n,"errors":[..]}); exits non-zero on failure.
import WebSocket from 'ws'
import { readFileSync } from 'node:fs'
import NDK, { NDKEvent } from '@nostr-dev-kit/ndk'
import { NDKSync, supportsNegentropy } from '@nostr-dev-kit/sync'
import { matchFilters } from 'nostr-tools/filter'

globalThis.WebSocket ??= WebSocket

const [wsUrl, inputFile] = process.argv.slice(2)
const input = JSON.parse(readFileSync(inputFile, 'utf8'))
const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 240000)

/** The smallest synchronous NDK cache adapter: raw events in a map, queried with nostr-tools' matchFilters. */
class MemoryCache {
  constructor() {
    this.locking = true
    this.ready = true
    this.events = new Map()
    this.relayStatus = new Map()
  }
  query(subscription) {
    const out = []
    for (const raw of this.events.values()) {
      if (matchFilters(subscription.filters, raw)) out.push(new NDKEvent(subscription.ndk, raw))
    }
    return out
  }
  async setEvent(event) {
    this.events.set(event.id, event.rawEvent())
  }
  getRelayStatus(url) {
    return this.relayStatus.get(url)
  }
  updateRelayStatus(url, info) {
    this.relayStatus.set(url, { ...(this.relayStatus.get(url) ?? {}), ...info })
  }
}

const cache = new MemoryCache()
for (const raw of input.cache) cache.events.set(raw.id, raw)

const ndk = new NDK({ explicitRelayUrls: [wsUrl], cacheAdapter: cache, enableOutboxModel: false })
await ndk.connect(10000)

let negOpens = 0
// count every NEG-OPEN the package sends (one per sync, or the sync fell back to something else)
for (const relay of ndk.pool.relays.values()) {
  const conn = relay.connectivity
  const send = conn.send.bind(conn)
  conn.send = message => {
    if (typeof message === 'string' && message.startsWith('["NEG-OPEN"')) {
      negOpens++
    }
    return send(message)
  }
}

console.log('NIP11 ' + JSON.stringify({ supportsNegentropy: await supportsNegentropy(wsUrl) }))

let failed = false
for (const c of input.cases) {
  const errors = []
  let rounds = 0
  negOpens = 0
  const sync = new NDKSync(ndk)
  const result = await sync.sync(c.filter, {
    relayUrls: [wsUrl],
    autoFetch: c.autoFetch === true,
    timeout: 120000,
    frameSizeLimit: c.frameSizeLimit,
    onRelayError: (_relay, error) => {
      errors.push(String(error?.message ?? error))
    },
    onNegotiationProgress: (_relay, progress) => {
      if (progress.phase === 'reconciling') rounds++
    },
  })
  if (errors.length > 0) failed = true
  const out = {
    name: c.name,
    have: [...result.have],
    need: [...result.need],
    fetched: result.events.map(e => e.rawEvent()),
    rounds,
    negOpens: negOpens,
    errors,
  }
  console.log('RESULT ' + JSON.stringify(out))
}
clearTimeout(deadline)
for (const relay of ndk.pool.relays.values()) relay.disconnect()
process.exit(failed ? 1 : 0)
