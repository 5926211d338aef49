// NIP-44 v2 and NIP-59 interop with an independent implementation: nostr-tools (npm), no relay.
// usage: node nip44-nip59-interop.mjs <input.json> <output.json>
//
// The input (written by IdentityInteropIT) holds two key pairs, Java's conversation key, payloads
// Java encrypted, a Java payload with one flipped ciphertext byte, a gift wrap Java made and a rumor
// template for nostr-tools to wrap. The output holds what nostr-tools made of them plus its own
// payloads and gift wrap for Java to open. Every check that fails here is listed in "failures" and
// makes the script exit 1; the output is written either way so that the Java side can show it.
import { readFileSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import * as nip44 from 'nostr-tools/nip44'
import * as nip59 from 'nostr-tools/nip59'
import { getPublicKey, getEventHash, verifyEvent } from 'nostr-tools/pure'
import { bytesToHex, hexToBytes } from 'nostr-tools/utils'

const [inFile, outFile] = process.argv.slice(2)
if (!inFile || !outFile) {
  console.error('usage: node nip44-nip59-interop.mjs <input.json> <output.json>')
  process.exit(2)
}

const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 25000)

const failures = []
function check(condition, message) {
  if (!condition) failures.push(message)
  return condition
}

/** Runs fn; returns { ok, value } or { ok: false, error }. */
function attempt(fn) {
  try {
    return { ok: true, value: fn() }
  } catch (e) {
    return { ok: false, error: String(e && e.message ? e.message : e) }
  }
}

const utf8 = new TextEncoder()
const byteLength = (s) => utf8.encode(s).length

/** Exactly n UTF-8 bytes: a random ASCII char, 'é' (2), '€' (3) and a G clef (4) over and over, ASCII at the end. */
function utf8OfBytes(n) {
  const r = randomBytes(Math.floor(n / 10))
  let s = ''
  let len = 0
  for (let i = 0; n - len >= 10; i++) {
    s += String.fromCharCode(0x21 + (r[i] % 94)) + 'é€\u{1D11E}'
    len += 10
  }
  while (len < n) {
    s += String.fromCharCode(0x61 + (len % 26))
    len++
  }
  return s
}

function asciiOfBytes(n) {
  const r = randomBytes(n)
  let s = ''
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x20 + (r[i] % 95))
  return s
}

function main() {
  const input = JSON.parse(readFileSync(inFile, 'utf8'))
  const alice = { sk: hexToBytes(input.alice.sk), pk: input.alice.pk }
  const bob = { sk: hexToBytes(input.bob.sk), pk: input.bob.pk }
  check(getPublicKey(alice.sk) === alice.pk, 'alice: nostr-tools derives another public key than Java')
  check(getPublicKey(bob.sk) === bob.pk, 'bob: nostr-tools derives another public key than Java')

  // ---- NIP-44: conversation key, both directions
  const keyAB = nip44.getConversationKey(alice.sk, bob.pk)
  const keyBA = nip44.getConversationKey(bob.sk, alice.pk)
  const conversationKeys = { aliceToBob: bytesToHex(keyAB), bobToAlice: bytesToHex(keyBA) }
  check(conversationKeys.aliceToBob === conversationKeys.bobToAlice, 'conversation key differs by side in nostr-tools')
  check(conversationKeys.aliceToBob === input.conversationKey,
    'conversation key: nostr-tools ' + conversationKeys.aliceToBob + ', Java ' + input.conversationKey)

  // Java -> nostr-tools: bob decrypts what alice (Java) encrypted
  const decryptedJava = []
  for (const p of input.javaPayloads) {
    const r = attempt(() => nip44.decrypt(p.payload, keyBA))
    if (check(r.ok, 'nostr-tools cannot decrypt the Java payload "' + p.label + '": ' + r.error)) {
      check(r.value === p.plaintext, 'nostr-tools decrypted the Java payload "' + p.label + '" to another plaintext ('
        + byteLength(r.value) + ' bytes, expected ' + byteLength(p.plaintext) + ')')
    }
    decryptedJava.push({ label: p.label, ok: r.ok, plaintext: r.ok ? r.value : null, error: r.ok ? null : r.error })
  }

  // nostr-tools -> Java: bob encrypts for alice
  const ownPlaintexts = [
    ['1 byte', '!'],
    ['ascii', 'nostr-tools says hello to fleetmesh: 0123456789 ~!@#$%^&*()_+{}|:"<>?'],
    ['utf-8 + emoji', 'Grüße, 世界! 🦩🧪 e\u0301 👩🏽‍💻 \u2028 "quoted" \\ \n\t end'],
    ['1 KiB', asciiOfBytes(1024)],
    ['65,535 bytes', utf8OfBytes(65535)],
    ['65,536 bytes', utf8OfBytes(65536)],
    ['100,000 bytes', utf8OfBytes(100000)],
  ]
  const jsPayloads = []
  for (const [label, plaintext] of ownPlaintexts) {
    const r = attempt(() => nip44.encrypt(plaintext, keyBA))
    if (check(r.ok, 'nostr-tools refuses to encrypt "' + label + '" (' + byteLength(plaintext) + ' bytes): ' + r.error)) {
      const back = attempt(() => nip44.decrypt(r.value, keyAB))
      check(back.ok && back.value === plaintext, 'nostr-tools cannot read back its own payload "' + label + '"')
    }
    jsPayloads.push({ label, bytes: byteLength(plaintext), plaintext, ok: r.ok, payload: r.ok ? r.value : null,
      error: r.ok ? null : r.error })
  }

  // negative, Java -> nostr-tools: one ciphertext byte flipped must be refused
  const tampered = attempt(() => nip44.decrypt(input.tamperedJavaPayload, keyBA))
  check(!tampered.ok, 'nostr-tools decrypted a Java payload with a flipped ciphertext byte')
  const tamperedJava = { refused: !tampered.ok, error: tampered.ok ? null : tampered.error }

  // negative, nostr-tools -> Java: a payload with its last MAC byte flipped
  const macSource = jsPayloads.find((p) => p.label === 'ascii')
  let jsMacFlipped = null
  if (macSource && macSource.ok) {
    const raw = Buffer.from(macSource.payload, 'base64')
    raw[raw.length - 1] ^= 0x01
    jsMacFlipped = raw.toString('base64')
    const own = attempt(() => nip44.decrypt(jsMacFlipped, keyAB))
    check(!own.ok, 'nostr-tools accepts its own payload with a flipped MAC byte')
  }

  // ---- NIP-59: nostr-tools wraps (bob -> alice); Java opens it
  const template = input.rumorTemplate
  const jsWrap = nip59.wrapEvent(template, bob.sk, alice.pk)
  check(verifyEvent(jsWrap), 'nostr-tools made a gift wrap that it does not verify itself')
  const selfOpened = attempt(() => nip59.unwrapEvent(jsWrap, alice.sk))
  check(selfOpened.ok, 'nostr-tools cannot unwrap its own gift wrap: ' + selfOpened.error)
  const jsRumorId = selfOpened.ok ? selfOpened.value.id : null
  check(jsRumorId === nip59.createRumor(template, bob.sk).id, 'rumor id of the unwrapped rumor is not createRumor\'s')

  // Java wraps (alice -> bob); nostr-tools unwraps
  const javaWrapVerifies = verifyEvent({ ...input.javaWrap })
  check(javaWrapVerifies, 'nostr-tools does not verify the id or signature of the Java gift wrap')
  const unwrapped = attempt(() => nip59.unwrapEvent({ ...input.javaWrap }, bob.sk))
  check(unwrapped.ok, 'nostr-tools cannot unwrap the Java gift wrap: ' + unwrapped.error)
  let javaRumor = null
  if (unwrapped.ok) {
    const r = unwrapped.value
    javaRumor = { id: r.id, pubkey: r.pubkey, created_at: r.created_at, kind: r.kind, tags: r.tags, content: r.content,
      hasSig: Object.prototype.hasOwnProperty.call(r, 'sig'), recomputedId: attempt(() => getEventHash(r)).value ?? null }
    const want = input.javaRumor
    check(r.id === want.id, 'rumor id: nostr-tools ' + r.id + ', Java ' + want.id)
    check(r.pubkey === alice.pk, 'rumor pubkey is not alice')
    check(r.kind === want.kind, 'rumor kind ' + r.kind)
    check(r.created_at === want.created_at, 'rumor created_at ' + r.created_at)
    check(JSON.stringify(r.tags) === JSON.stringify(want.tags), 'rumor tags ' + JSON.stringify(r.tags))
    check(r.content === want.content, 'rumor content differs')
    check(javaRumor.recomputedId === want.id, 'nostr-tools computes another id for the Java rumor: ' + javaRumor.recomputedId)
  }

  // ---- observations: where nostr-tools is more lenient than NIP-01/NIP-44/NIP-59 ask (not failures)
  const observations = {}
  // 1. a gift wrap whose own signature is broken
  const broken = attempt(() => nip59.unwrapEvent({ ...input.javaWrapBrokenSig }, bob.sk))
  observations.brokenWrapSignature = { verifyEvent: verifyEvent({ ...input.javaWrapBrokenSig }), unwrapAccepted: broken.ok,
    error: broken.ok ? null : broken.error }
  // 2. a control character in a rumor: nostr-tools hashes JSON.stringify, which escapes U+0001..U+001F
  //    (other than \b \t \n \f \r) as \u00XX; NIP-01 wants them verbatim
  const ctl = input.controlCharTemplate
  const ctlWrap = nip59.wrapEvent(ctl, bob.sk, alice.pk)
  observations.controlChar = { jsWrap: ctlWrap, jsRumorId: nip59.createRumor(ctl, bob.sk).id }
  const ctlJava = attempt(() => nip59.unwrapEvent({ ...input.javaControlCharWrap }, bob.sk))
  observations.controlChar.javaWrapUnwrapAccepted = ctlJava.ok
  if (ctlJava.ok) {
    observations.controlChar.javaRumorId = ctlJava.value.id
    observations.controlChar.javaRumorIdAsNostrToolsComputesIt = getEventHash(ctlJava.value)
  }

  clearTimeout(deadline)
  return {
    failures,
    conversationKeys,
    decryptedJava,
    jsPayloads,
    tamperedJava,
    jsMacFlipped,
    jsWrap,
    jsRumorId,
    javaWrapVerifies,
    javaRumor,
    observations,
  }
}

let out
try {
  out = main()
} catch (e) {
  out = { failures: [...failures, 'FAIL: ' + (e && e.stack ? e.stack : e)] }
}
writeFileSync(outFile, JSON.stringify(out))
if (out.failures.length > 0) {
  console.error('FAIL:\n  ' + out.failures.join('\n  '))
  process.exit(1)
}
console.log('OK nip44-nip59 interop')
process.exit(0)
