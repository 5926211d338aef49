#!/bin/sh
# Rebuilds the .wasm files of this folder from their .wat sources.
set -e
cd "$(dirname "$0")"
W=../../../../../tools/node_modules/.bin/wat2wasm
for f in *.wat; do "$W" "$f" -o "${f%.wat}.wasm"; done
