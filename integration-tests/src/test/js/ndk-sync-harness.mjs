// Negentropy interop below NIP-77: @nostr-dev-kit/sync's own engine (its exported Negentropy and
// NegentropyStorage classes) against `meshnode negentropy-harness`, spoken to over stdio with the
// reference test-harness protocol (item/seal/initiate/msg in; msg/have/need/done out).
// usage: node ndk-sync-harness.mjs <meshnode-script> <input.json>
//   input: {"cases":[{"name":..,"initiator":"meshnode"|"package","harnessFrameSizeLimit":n,
//            "packageFrameSizeLimit":n,"meshnode":[[ts,id],..],"package":[[ts,id],..]},..]}
//   "meshnode" items go to the harness, "package" items into the package's storage. The initiator
//   reports have/need: the harness through its have/need lines, the package through reconcile().
// Prints one line per case starting with RESULT ({"name":..,"have":[..],"need":[..],"rounds":n}).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { Negentropy, NegentropyStorage, uint8ArrayToHex, hexToUint8Array } from '@nostr-dev-kit/sync'

const [meshnode, inputFile] = process.argv.slice(2)
const input = JSON.parse(readFileSync(inputFile, 'utf8'))
const deadline = setTimeout(() => {
  console.error('FAIL: timed out')
  process.exit(3)
}, 240000)

/** One harness child process, read line by line. */
function startHarness(frameSizeLimit) {
  const child = spawn(meshnode, ['negentropy-harness'], {
    env: { ...process.env, FRAMESIZELIMIT: String(frameSizeLimit ?? 0) },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', d => (stderr += d))
  const lines = []
  let waiting = null
  let ended = false
  createInterface({ input: child.stdout }).on('line', l => {
    if (waiting) {
      const w = waiting
      waiting = null
      w(l)
    } else lines.push(l)
  })
  child.on('exit', () => {
    ended = true
    if (waiting) {
      const w = waiting
      waiting = null
      w(null)
    }
  })
  return {
    write: l => child.stdin.write(l + '\n'),
    next: () =>
      lines.length > 0 ? Promise.resolve(lines.shift()) : ended ? Promise.resolve(null) : new Promise(r => (waiting = r)),
    end: async () => {
      child.stdin.end()
      const code = child.exitCode ?? (await new Promise(r => child.on('exit', c => r(c))))
      if (code !== 0) throw new Error('harness exited with ' + code + ': ' + stderr)
    },
    stderr: () => stderr,
  }
}

function storageOf(items) {
  const s = new NegentropyStorage()
  for (const [ts, id] of items) s.insert(ts, id)
  s.seal()
  return s
}

async function meshnodeInitiates(c) {
  const h = startHarness(c.harnessFrameSizeLimit)
  for (const [ts, id] of c.meshnode) h.write(`item,${ts},${id}`)
  h.write('seal')
  const responder = new Negentropy(storageOf(c.package), c.packageFrameSizeLimit ?? 0)
  h.write('initiate')
  const have = [], need = []
  let rounds = 0
  for (;;) {
    const line = await h.next()
    if (line === null) throw new Error('harness ended early: ' + h.stderr())
    if (line.startsWith('have,')) have.push(line.slice(5))
    else if (line.startsWith('need,')) need.push(line.slice(5))
    else if (line === 'done') break
    else if (line.startsWith('msg,')) {
      if (++rounds > 1000) throw new Error('more than 1000 rounds')
      const { nextMessage } = await responder.reconcile(hexToUint8Array(line.slice(4)))
      h.write('msg,' + uint8ArrayToHex(nextMessage))
    } else throw new Error('unexpected harness line: ' + line)
  }
  await h.end()
  return { have, need, rounds }
}

async function packageInitiates(c) {
  const h = startHarness(c.harnessFrameSizeLimit)
  for (const [ts, id] of c.meshnode) h.write(`item,${ts},${id}`)
  h.write('seal')
  const initiator = new Negentropy(storageOf(c.package), c.packageFrameSizeLimit ?? 0)
  let msg = await initiator.initiate()
  const have = [], need = []
  let rounds = 0
  while (msg !== undefined) {
    if (++rounds > 1000) throw new Error('more than 1000 rounds')
    h.write('msg,' + uint8ArrayToHex(msg))
    let line = await h.next()
    if (line === null || !line.startsWith('msg,')) throw new Error('harness answered ' + line + ': ' + h.stderr())
    const r = await initiator.reconcile(hexToUint8Array(line.slice(4)))
    r.have.forEach(id => have.push(uint8ArrayToHex(id)))
    r.need.forEach(id => need.push(uint8ArrayToHex(id)))
    msg = r.nextMessage
  }
  await h.end()
  return { have, need, rounds }
}

for (const c of input.cases) {
  const r = c.initiator === 'meshnode' ? await meshnodeInitiates(c) : await packageInitiates(c)
  console.log('RESULT ' + JSON.stringify({ name: c.name, ...r }))
}
clearTimeout(deadline)
process.exit(0)
