// Runs a WASI preview 1 command module under Node's node:wasi, as fleetmesh's job ABI has it: argv[0] = "main",
// then the job's arguments, no environment, no preopens, stdin from a file. Writes the guest's stdout and stderr to
// the two files named and prints {"exit_code": N} on its own stdout.
// usage: node wasi-run.mjs <module.wasm> <stdin-file> <stdout-file> <stderr-file> [args...]
import { readFileSync, openSync, closeSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [module, stdinPath, stdoutPath, stderrPath, ...args] = process.argv.slice(2);
const stdin = openSync(stdinPath, 'r');
const stdout = openSync(stdoutPath, 'w');
const stderr = openSync(stderrPath, 'w');
const wasi = new WASI({ version: 'preview1', args: ['main', ...args], env: {}, preopens: {}, stdin, stdout, stderr,
  returnOnExit: true });
const instance = await WebAssembly.instantiate(new WebAssembly.Module(readFileSync(module)), wasi.getImportObject());
const code = wasi.start(instance);
[stdin, stdout, stderr].forEach(closeSync);
console.log(JSON.stringify({ exit_code: code }));
