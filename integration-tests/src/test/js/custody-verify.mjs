// Custody proofs and receipt chains (docs/spec/custody.md) checked with nostr-tools and node:crypto alone:
// RFC 9162 inclusion and consistency verification are written out here, not taken from fleetmesh.
// usage: node custody-verify.mjs <input.json> <output.json>
//
// The input (written by CustodyInteropIT) holds custody proofs and chain exports (arrays of JSONL lines), some
// valid, some damaged. The output has one entry per case: {"name", "ok", "why", "badLine"}. The script judges
// each case on its own; the Java side compares the verdicts with what it built.
import { readFileSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { verifyEvent } from 'nostr-tools/pure'

const [inFile, outFile] = process.argv.slice(2)
if (!inFile || !outFile) {
  console.error('usage: node custody-verify.mjs <input.json> <output.json>')
  process.exit(2)
}

const sha256 = (...parts) => {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest()
}
const EMPTY_ROOT = sha256()
const leafHash = (idHex) => sha256(Buffer.from([0]), Buffer.from(idHex, 'hex'))
const nodeHash = (l, r) => sha256(Buffer.from([1]), l, r)
const isHex = (s, n) => typeof s === 'string' && s.length === n && /^[0-9a-f]*$/.test(s)
const hashes = (list) => {
  if (!Array.isArray(list) || !list.every((h) => isHex(h, 64))) throw new Error('not a list of 32-byte hex hashes')
  return list.map((h) => Buffer.from(h, 'hex'))
}

// RFC 9162 §2.1.3.2, with BigInt sizes
function verifyInclusion(leaf, index, size, path, root) {
  let fn = BigInt(index)
  let sn = BigInt(size) - 1n
  if (fn < 0n || fn > sn) return false
  let r = leaf
  for (const p of path) {
    if (sn === 0n) return false
    if ((fn & 1n) === 1n || fn === sn) {
      r = nodeHash(p, r)
      while ((fn & 1n) === 0n && fn !== 0n) { fn >>= 1n; sn >>= 1n }
    } else {
      r = nodeHash(r, p)
    }
    fn >>= 1n; sn >>= 1n
  }
  return sn === 0n && r.equals(root)
}

// RFC 9162 §2.1.4.2, with m = 0 and m = n taking an empty proof (docs/spec/custody.md §2)
function verifyConsistency(m, n, rootM, rootN, proof) {
  m = BigInt(m); n = BigInt(n)
  if (m > n) return false
  if (m === n) return proof.length === 0 && rootM.equals(rootN)
  if (m === 0n) return proof.length === 0 && rootM.equals(EMPTY_ROOT)
  if (proof.length === 0) return false
  const path = (m & (m - 1n)) === 0n ? [rootM, ...proof] : proof
  let fn = m - 1n
  let sn = n - 1n
  while ((fn & 1n) === 1n) { fn >>= 1n; sn >>= 1n }
  let fr = path[0]
  let sr = path[0]
  for (const c of path.slice(1)) {
    if (sn === 0n) return false
    if ((fn & 1n) === 1n || fn === sn) {
      fr = nodeHash(c, fr); sr = nodeHash(c, sr)
      while ((fn & 1n) === 0n && fn !== 0n) { fn >>= 1n; sn >>= 1n }
    } else {
      sr = nodeHash(sr, c)
    }
    fn >>= 1n; sn >>= 1n
  }
  return sn === 0n && fr.equals(rootM) && sr.equals(rootN)
}

const decimal = (s, what) => {
  if (typeof s !== 'string' || !/^(0|[1-9][0-9]*)$/.test(s)) throw new Error(`${what} is not a decimal`)
  return BigInt(s)
}

// A kind 11803 receipt: authentic (nostr-tools), checkpoint content, tags in order
function receipt(e) {
  if (!e || typeof e !== 'object') throw new Error('no receipt event')
  if (!verifyEvent(e)) throw new Error('signature: the receipt does not verify with nostr-tools')
  if (e.kind !== 11803) throw new Error('signature: not kind 11803')
  const lines = e.content.split('\n')
  if (lines.length !== 4 || lines[3] !== '') throw new Error('format: content is not three lines')
  const size = decimal(lines[1], 'the size')
  const root = Buffer.from(lines[2], 'base64')
  if (root.length !== 32 || root.toString('base64') !== lines[2]) throw new Error('format: the root is not 32 bytes of base64')
  const t = e.tags
  let i = 0
  const tag = (name, len) => {
    const x = t[i++]
    if (!x || x[0] !== name || x.length !== len) throw new Error(`format: tag ${i - 1} is not ${name}`)
    return x
  }
  const p = tag('p', 2)[1]
  if (!isHex(p, 64)) throw new Error('format: p is not a pubkey')
  let prev = null
  if (t[i] && t[i][0] === 'prev') prev = tag('prev', 2)[1]
  const seq = decimal(tag('seq', 2)[1], 'seq')
  const bytes = decimal(tag('bytes', 2)[1], 'bytes')
  const events = decimal(tag('events', 2)[1], 'events')
  for (; i < t.length; i++) {
    if (t[i][0] !== 'rejected' || t[i].length !== 3 || !isHex(t[i][1], 64)) throw new Error(`format: tag ${i} is not rejected`)
  }
  if (lines[0] !== `fleetmesh.custody/${e.pubkey}/${p}`) throw new Error('format: the origin does not name signer and p')
  if (events !== size) throw new Error('counts: events is not the tree size')
  return { id: e.id, receiver: e.pubkey, sender: p, prev, seq, bytes, size, root }
}

function checkProof(proof) {
  const r = receipt(proof.receipt)
  if (!isHex(proof.event_id, 64)) throw new Error('event_id is not hex')
  if (BigInt(proof.tree_size) !== r.size) throw new Error('tree_size is not the checkpoint size')
  if (!verifyInclusion(leafHash(proof.event_id), proof.index, proof.tree_size, hashes(proof.path), r.root)) {
    throw new Error('the path does not reach the root')
  }
}

// a chain export: returns the first bad line (1-based) or 0
function checkChain(lines) {
  let prev = null
  for (let n = 1; n <= lines.length; n++) {
    try {
      const o = JSON.parse(lines[n - 1])
      const r = receipt(o.receipt)
      const proof = hashes(o.consistency)
      if (prev === null) {
        if (r.prev !== null) throw new Error('prev: the first receipt names a prev')
        if (!verifyConsistency(0n, r.size, EMPTY_ROOT, r.root, proof)) throw new Error('fork: first proof not empty')
      } else {
        if (r.receiver !== prev.receiver || r.sender !== prev.sender) throw new Error('another pair')
        if (r.prev !== prev.id) throw new Error('prev: does not name the previous receipt')
        if (r.seq <= prev.seq) throw new Error('format: seq does not advance')
        if (r.bytes < prev.bytes) throw new Error('counts: bytes went down')
        if (!verifyConsistency(prev.size, r.size, prev.root, r.root, proof)) throw new Error('fork: consistency does not verify')
      }
      prev = r
    } catch (e) {
      return { badLine: n, why: e.message }
    }
  }
  return { badLine: 0, why: null }
}

const input = JSON.parse(readFileSync(inFile, 'utf8'))
const out = []
for (const c of input.proofs) {
  try {
    checkProof(c.proof)
    out.push({ name: c.name, ok: true, why: null, badLine: 0 })
  } catch (e) {
    out.push({ name: c.name, ok: false, why: e.message, badLine: 0 })
  }
}
for (const c of input.chains) {
  const r = checkChain(c.lines)
  out.push({ name: c.name, ok: r.badLine === 0, why: r.why, badLine: r.badLine })
}
writeFileSync(outFile, JSON.stringify(out, null, 1))
