#!/usr/bin/env bash
# The Class-Path of quarkus-run.jar in the current directory, ':'-joined (for bench/ClassPathScan.java).
unzip -p quarkus-run.jar META-INF/MANIFEST.MF | tr -d '\r' \
  | awk '/^Class-Path:/ {s = substr($0, 13); c = 1; next} c && /^ / {s = s substr($0, 2); next} {c = 0} END {print s}' \
  | tr ' ' ':'
