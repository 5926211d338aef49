#!/usr/bin/env bash
# Builds the test modules from src/*.c with Debian's clang + wasi-libc (wasm32-wasi) and src/*.wat with wabt's
# wat2wasm (npm package `wabt`, installed under ./.tools, which git ignores). The .wasm files are committed: run
# this only after changing a source. Sizes are checked: a stripped module here is a few KiB.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for c in src/*.c; do
  name=$(basename "$c" .c)
  clang --target=wasm32-wasi -O2 -Wl,--strip-all -o "$name.wasm" "$c" -lm
  echo "$name.wasm $(stat -c %s "$name.wasm") bytes"
done
if ls src/*.wat >/dev/null 2>&1; then
  if [ ! -d .tools/node_modules/wabt ]; then
    mkdir -p .tools && (cd .tools && npm install --no-save --silent wabt@1.0.37 >/dev/null)
  fi
  for w in src/*.wat; do
    name=$(basename "$w" .wat)
    node wat2wasm.js "$w" "$name.wasm"
    echo "$name.wasm $(stat -c %s "$name.wasm") bytes"
  done
fi
