// Interop check with an independent client from another ecosystem: rust-nostr (@rust-nostr/nostr-sdk,
// compiled to WebAssembly) against a running meshnode, with client limits off (the NIP-77 part publishes
// thousands of events from one address).
// usage: node rust-nostr-interop.mjs <ws-url>
// Prints one JSON line starting with RESULT (what the SDK saw; RustNostrIT asserts on it); exits non-zero
// only when the script itself fails.
//
// Two things the SDK needs in Node that are not about the relay:
// - Its wasm WebSocket sets onmessage only once its "open" future has resumed, while ws (what the SDK uses
//   in Node 20, which has no global WebSocket) emits a frame that came with the upgrade response in the same
//   tick as "open". So the SDK loses the relay's ["AUTH", <challenge>], which meshnode sends as the connection
//   opens (NIP-42: "could be sent right as the client connects"), about half the time; without a challenge its
//   automatic authentication never starts and reads of gift wraps come back empty after a 10 s timeout. The
//   ws subclass below holds messages until onmessage is set (an SDK bug, found here; see RustNostrIT).
// - Its default database (a memory database) stores no events, and its only other database is IndexedDB,
//   which Node lacks: fake-indexeddb provides it, so that sync() has a local set to reconcile.
import WS from 'ws'
import 'fake-indexeddb/auto'

class HoldingWebSocket extends WS {
  #held = []
  #handler = null
  constructor(...args) {
    super(...args)
    this.addEventListener('message', (ev) => {
      if (this.#handler) this.#handler.call(this, ev)
      else this.#held.push(ev)
    })
  }
  get onmessage() {
    return this.#handler
  }
  set onmessage(fn) {
    this.#handler = fn
    if (fn) {
      const held = this.#held
      this.#held = []
      for (const ev of held) fn.call(this, ev)
    }
  }
}
globalThis.WebSocket = HoldingWebSocket

const sdk = await import('@rust-nostr/nostr-sdk')
const {
  loadWasmAsync, ClientBuilder, ClientOptions, Keys, NostrSigner, NostrDatabase, EventBuilder, Filter, Duration,
  Tag, Kind, Metadata, Contact, Timestamp, EventDeletionRequest, Coordinate, SyncOptions, SyncDirection,
} = sdk

const [wsUrl] = process.argv.slice(2)
if (!wsUrl) {
  console.error('usage: node rust-nostr-interop.mjs <ws-url>')
  process.exit(2)
}
const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 240000)

await loadWasmAsync()
const T = Duration.fromSecs(15)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const nowSecs = () => Math.floor(Date.now() / 1000)
const clients = []

/** A client on the relay; msgs collects every relay message but EVENT, as JSON. */
async function client(keys, { auth = true, db = false } = {}) {
  let b = new ClientBuilder().opts(new ClientOptions().automaticAuthentication(auth))
  if (keys) b = b.signer(NostrSigner.keys(keys))
  if (db) b = b.database(await NostrDatabase.indexeddb('rn-' + Math.random()))
  const c = b.build()
  await c.addRelay(wsUrl)
  await c.connect()
  await c.waitForConnection(T)
  c.msgs = []
  c.live = []
  c.handleNotifications({
    handleEvent: async (url, sub, ev) => {
      c.live.push(ev)
      return false
    },
    handleMsg: async (url, m) => {
      const j = m.asJson()
      if (!j.startsWith('["EVENT"')) c.msgs.push(j)
      return false
    },
  })
  clients.push(c)
  return c
}

const errors = (out) => out.failed.map((f) => f.error)
async function send(c, builder) {
  const out = await c.sendEventBuilder(builder)
  if (out.failed.length) throw new Error('refused: ' + errors(out).join('; '))
  return out.id
}
const fetch = async (c, f) => (await c.fetchEvents(f, T)).toVec()
const contents = (evs) => evs.map((e) => e.content)
const hexes = (evs) => evs.map((e) => e.id.toHex())
const idHexes = (ids) => ids.map((id) => id.toHex())

const result = {}

// ---- publish and read back ----
const alice = Keys.generate()
const bob = Keys.generate()
const writer = await client(alice)
const reader = await client(null)
const me = alice.publicKey
result.pubkey = me.toHex()
const t0 = nowSecs()
const notes = []
for (let i = 0; i < 5; i++) {
  notes.push(await send(writer, EventBuilder.textNote('note ' + i)
    .tags([Tag.hashtag(i % 2 ? 'odd' : 'even'), Tag.publicKey(bob.publicKey)])
    .customCreatedAt(Timestamp.fromSecs(t0 - 100 + i))))
}
await send(writer, EventBuilder.textNote('reply').tags([Tag.event(notes[0])]).customCreatedAt(Timestamp.fromSecs(t0 - 50)))
await writer.setMetadata(new Metadata().name('rust-nostr tester').about('interop'))
await send(writer, EventBuilder.contactList([new Contact(bob.publicKey, null, 'bob')]).customCreatedAt(Timestamp.fromSecs(t0 - 40)))
await send(writer, EventBuilder.contactList([new Contact(bob.publicKey, null, 'bob2')]).customCreatedAt(Timestamp.fromSecs(t0 - 30)))
await send(writer, EventBuilder.longFormTextNote('article v1').tags([Tag.identifier('art')]).customCreatedAt(Timestamp.fromSecs(t0 - 20)))
await send(writer, EventBuilder.longFormTextNote('article v2').tags([Tag.identifier('art')]).customCreatedAt(Timestamp.fromSecs(t0 - 10)))
const k1 = new Filter().author(me).kind(new Kind(1))
result.read = {
  kind1: contents(await fetch(reader, k1)).sort(),
  tagEven: contents(await fetch(reader, new Filter().author(me).hashtag('even'))).sort(),
  tagP: (await fetch(reader, new Filter().pubkey(bob.publicKey))).map((e) => e.kind.asU16()).sort(),
  tagE: contents(await fetch(reader, new Filter().event(notes[0]))),
  sinceUntil: contents(await fetch(reader, k1.since(Timestamp.fromSecs(t0 - 99)).until(Timestamp.fromSecs(t0 - 97)))).sort(),
  limit2: contents(await fetch(reader, new Filter().author(me).kind(new Kind(1)).limit(2))).sort(),
  ids: contents(await fetch(reader, new Filter().ids([notes[1], notes[3]]))).sort(),
  metadataName: (await reader.fetchMetadata(me, T))?.getName() ?? null,
  contacts: (await fetch(reader, new Filter().author(me).kind(new Kind(3)))).map((e) => e.tags.toVec().map((t) => t.asVec())),
  article: contents(await fetch(reader, new Filter().author(me).kind(new Kind(30023)).identifier('art'))),
  allValid: (await fetch(reader, new Filter().author(me))).every((e) => e.verify()),
}

// ---- a live subscription ----
reader.live.length = 0 // fetchEvents' events come through the notifications too
reader.msgs.length = 0
await reader.subscribe(new Filter().author(me).kind(new Kind(1)).limit(0))
await sleep(500)
const liveId = await send(writer, EventBuilder.textNote('live note'))
for (let i = 0; i < 50 && !reader.live.some((e) => e.id.toHex() === liveId.toHex()); i++) await sleep(100)
result.live = { received: hexes(reader.live), expected: liveId.toHex(), eose: reader.msgs.some((m) => m.startsWith('["EOSE"')) }

// ---- NIP-09: by id and by coordinate ----
const byId = new EventDeletionRequest()
byId.ids = [notes[4]]
byId.reason = 'typo'
await send(writer, EventBuilder.delete(byId))
const byAddress = new EventDeletionRequest()
byAddress.coordinates = [new Coordinate(new Kind(30023), me, 'art')]
await send(writer, EventBuilder.delete(byAddress))
const resent = await writer.sendEventBuilder(EventBuilder.textNote('note 4')
  .tags([Tag.hashtag('even'), Tag.publicKey(bob.publicKey)]).customCreatedAt(Timestamp.fromSecs(t0 - 96)))
const olderArticle = await writer.sendEventBuilder(EventBuilder.longFormTextNote('article v0')
  .tags([Tag.identifier('art')]).customCreatedAt(Timestamp.fromSecs(t0 - 15)))
result.deletion = {
  kind1: contents(await fetch(reader, new Filter().author(me).kind(new Kind(1)))).sort(),
  articles: (await fetch(reader, new Filter().author(me).kind(new Kind(30023)))).length,
  deletions: (await fetch(reader, new Filter().author(me).kind(new Kind(5)))).length,
  resentDeleted: errors(resent),
  olderArticle: errors(olderArticle),
}
const newerArticle = await writer.sendEventBuilder(EventBuilder.longFormTextNote('article v3')
  .tags([Tag.identifier('art')]).customCreatedAt(Timestamp.fromSecs(nowSecs() + 1)))
result.deletion.newerArticle = errors(newerArticle)
result.deletion.articlesAfter = contents(await fetch(reader, new Filter().author(me).kind(new Kind(30023))))

// ---- NIP-40 ----
const expiring = await writer.sendEventBuilder(EventBuilder.textNote('expiring').tags([Tag.expiration(Timestamp.fromSecs(nowSecs() + 3))]))
const expired = await writer.sendEventBuilder(EventBuilder.textNote('expired').tags([Tag.expiration(Timestamp.fromSecs(nowSecs() - 3))]))
result.expiration = {
  sent: errors(expiring),
  before: (await fetch(reader, new Filter().id(expiring.id))).length,
  expired: errors(expired),
}
await sleep(4500)
result.expiration.after = (await fetch(reader, new Filter().id(expiring.id))).length

// ---- NIP-45 ----
const relayOf = async (c) => c.relay(wsUrl)
result.count = Number(await (await relayOf(reader)).countEvents(new Filter().author(me), T))
result.countKind1 = Number(await (await relayOf(reader)).countEvents(new Filter().author(me).kind(new Kind(1)), T))

// ---- NIP-42 and NIP-70 ----
const protectedOut = await writer.sendEventBuilder(EventBuilder.textNote('protected').tags([Tag.protected()]))
const foreign = EventBuilder.textNote('protected, of someone else').tags([Tag.protected()]).signWithKeys(bob)
const foreignOut = await writer.sendEvent(foreign)
const noAuth = await client(Keys.generate(), { auth: false })
const noAuthOut = await noAuth.sendEventBuilder(EventBuilder.textNote('protected, no AUTH').tags([Tag.protected()]))
result.nip70 = {
  own: errors(protectedOut),
  ownId: protectedOut.id.toHex(),
  ownRead: contents(await fetch(reader, new Filter().id(protectedOut.id))),
  authOk: writer.msgs.filter((m) => m.startsWith('["OK"') && m.includes('true')).length > 0,
  foreign: errors(foreignOut),
  withoutAuth: errors(noAuthOut),
}

// ---- NIP-59 gift wrap: a private message to oneself ----
const dm = await writer.sendPrivateMsg(me, 'a secret for myself')
const recipient = await client(alice) // the same keys, a fresh connection: authenticates when asked
const wraps = await fetch(recipient, new Filter().kind(new Kind(1059)).pubkey(me))
const opened = []
for (const w of wraps) {
  const u = await recipient.unwrapGiftWrap(w)
  opened.push({ sender: u.sender.toHex(), kind: u.rumor.kind.asU16(), content: u.rumor.content })
}
const stranger = await client(Keys.generate())
const unauthenticated = await client(alice, { auth: false })
result.giftWrap = {
  sent: errors(dm),
  id: dm.id.toHex(),
  fetched: hexes(wraps),
  kinds: wraps.map((w) => w.kind.asU16()),
  opened,
  recipientClosed: recipient.msgs.filter((m) => m.startsWith('["CLOSED"')),
  recipientAuthOk: recipient.msgs.some((m) => m.startsWith('["OK"') && m.includes('true')),
  stranger: hexes(await fetch(stranger, new Filter().kind(new Kind(1059)).pubkey(me))),
  unauthenticated: hexes(await fetch(unauthenticated, new Filter().kind(new Kind(1059)).pubkey(me))),
  unauthenticatedClosed: unauthenticated.msgs.filter((m) => m.startsWith('["CLOSED"')),
  count: Number(await (await relayOf(recipient)).countEvents(new Filter().kind(new Kind(1059)).pubkey(me), T)),
}
recipient.live.length = 0
await recipient.subscribe(new Filter().kind(new Kind(1059)).pubkey(me).limit(0))
await sleep(500)
const dm2 = await writer.sendPrivateMsg(me, 'a live secret')
for (let i = 0; i < 50 && !recipient.live.some((e) => e.kind.asU16() === 1059); i++) await sleep(100)
result.giftWrap.live = []
for (const w of recipient.live.filter((e) => e.kind.asU16() === 1059)) {
  result.giftWrap.live.push((await recipient.unwrapGiftWrap(w)).rumor.content)
}
result.giftWrap.liveId = dm2.id.toHex()

// ---- NIP-77: client.sync against the relay's negentropy, both directions ----
/** Publishes with plain ws (pipelined, not through the SDK): the relay-side part of each case. */
async function seed(events) {
  const ws = new WS(wsUrl)
  await new Promise((r, j) => { ws.on('open', r); ws.on('error', j) })
  const refused = []
  let answered = 0
  const done = new Promise((res) => ws.on('message', (d) => {
    const m = JSON.parse(d)
    if (m[0] === 'OK') {
      if (!m[2]) refused.push(m[3])
      if (++answered === events.length) res()
    }
  }))
  for (const e of events) ws.send('["EVENT",' + e.asJson() + ']')
  if (events.length) await done
  ws.close()
  return refused
}
/** The relay's answer to one REQ, by plain ws: ids. */
async function req(filter) {
  const ws = new WS(wsUrl)
  await new Promise((r, j) => { ws.on('open', r); ws.on('error', j) })
  const ids = []
  const done = new Promise((res, rej) => ws.on('message', (d) => {
    const m = JSON.parse(d)
    if (m[0] === 'EVENT') ids.push(m[2].id)
    else if (m[0] === 'EOSE') res()
    else if (m[0] === 'CLOSED') rej(new Error('CLOSED ' + m[2]))
  }))
  ws.send(JSON.stringify(['REQ', 'check', filter]))
  await done
  ws.close()
  return ids
}
const sorted = (a) => [...a].sort()
const idsOf = (evs) => sorted(evs.map((e) => e.id.toHex()))
const same = (a, b) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b))

async function syncCase(name, { relayOnly, both, localOnly, relayOutside, localOutside, filter, reqFilter, steps }) {
  const refused = await seed([...relayOnly, ...both, ...relayOutside])
  const c = await client(Keys.generate(), { db: true })
  for (const e of [...both, ...localOnly, ...localOutside]) await c.database.save_event(e)
  const r = { name, author: relayOnly[0].author.toHex(), refused: refused.slice(0, 3), steps: [] }
  const dry = await c.sync(filter, new SyncOptions().direction(SyncDirection.Both).dry_run())
  r.dryHave = same(idHexes(dry.report.local), idsOf(localOnly))
  r.dryNeed = same(idHexes(dry.report.remote), idsOf(relayOnly))
  r.dryCounts = [dry.report.local.length, dry.report.remote.length, dry.report.sent.length, dry.report.received.length]
  for (const direction of steps) {
    const out = await c.sync(filter, new SyncOptions().direction(direction))
    r.steps.push({
      direction: SyncDirection[direction],
      failed: out.failed.map((f) => f.url + ': ' + f.error),
      sent: out.report.sent.length,
      received: out.report.received.length,
      sentExactly: same(idHexes(out.report.sent), direction === SyncDirection.Down ? [] : idsOf(localOnly)),
      receivedExactly: same(idHexes(out.report.received), direction === SyncDirection.Up ? [] : idsOf(relayOnly)),
    })
  }
  const union = idsOf([...relayOnly, ...both, ...localOnly])
  const onRelay = await req(reqFilter)
  r.relayMatchesUnion = same(onRelay, union)
  r.relayCount = onRelay.length
  r.union = union.length
  r.relayKeptOutside = same(await req({ ...reqFilter, kinds: [7] }), idsOf(relayOutside.filter((e) => e.kind.asU16() === 7)))
  const local = (await c.database.query(filter)).toVec()
  r.localMatchesUnion = same(hexes(local), union)
  r.localKeptOutside = same(hexes((await c.database.query(new Filter().author(relayOnly[0].author).kind(new Kind(7)))).toVec()),
    idsOf(localOutside.filter((e) => e.kind.asU16() === 7)))
  r.localCount = local.length
  const again = await c.sync(filter, new SyncOptions().direction(SyncDirection.Both).dry_run())
  r.afterwards = [again.report.local.length, again.report.remote.length]
  r.sdkCount = Number(await (await relayOf(c)).countEvents(filter, T))
  return r
}

function events(keys, n, base, label, kind = 1, tags = []) {
  const l = []
  for (let i = 0; i < n; i++) {
    // runs of three events share a created_at
    // Tag objects are moved into the builder (wasm-bindgen), so each event gets its own
    l.push(new EventBuilder(new Kind(kind), label + ' ' + i).tags(tags.map((t) => Tag.parse(t)))
      .customCreatedAt(Timestamp.fromSecs(base - Math.floor(i / 3))).signWithKeys(keys))
  }
  return l
}
function split(all) {
  return [all.filter((_, i) => i % 3 === 0), all.filter((_, i) => i % 3 === 1), all.filter((_, i) => i % 3 === 2)]
}
result.sync = []
{
  const k = Keys.generate()
  const base = nowSecs() - 20000
  const [relayOnly, both, localOnly] = split(events(k, 3000, base, 'whole'))
  result.sync.push(await syncCase('both-directions', {
    relayOnly, both, localOnly,
    relayOutside: events(k, 40, base, 'relay kind 7', 7), localOutside: events(k, 40, base, 'local kind 7', 7),
    filter: new Filter().author(k.publicKey).kind(new Kind(1)),
    reqFilter: { authors: [k.publicKey.toHex()], kinds: [1], limit: 5000 },
    steps: [SyncDirection.Both],
  }))
}
{
  const k = Keys.generate()
  const until = nowSecs() - 40000
  const since = until - 400
  const topic = [['t', 'sync']]
  const inside = events(k, 1200, until, 'scoped', 1, topic)
  const [relayOnly, both, localOnly] = split(inside)
  const outside = (label) => [
    ...events(k, 30, until, label + ' kind 7', 7, topic),
    ...events(k, 30, until, label + ' other tag', 1, [['t', 'other']]),
    ...events(k, 30, since - 1, label + ' before since', 1, topic),
    ...events(k, 30, until + 100, label + ' after until', 1, topic).filter((e) => e.createdAt.asSecs() > until),
  ]
  result.sync.push(await syncCase('filter-scoped, down then up', {
    relayOnly, both, localOnly, relayOutside: outside('relay'), localOutside: outside('local'),
    filter: new Filter().author(k.publicKey).kind(new Kind(1)).hashtag('sync')
      .since(Timestamp.fromSecs(since)).until(Timestamp.fromSecs(until)),
    reqFilter: { authors: [k.publicKey.toHex()], kinds: [1], '#t': ['sync'], since, until, limit: 5000 },
    steps: [SyncDirection.Down, SyncDirection.Up],
  }))
}

clearTimeout(deadline)
console.log('RESULT ' + JSON.stringify(result))
for (const c of clients) await c.shutdown().catch(() => {})
process.exit(0)
