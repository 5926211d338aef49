#!/usr/bin/env bash
# Builds the node's container image without a Docker daemon or a registry (docs/OPERATING.md "Containers"):
#   1. a base image assembled here: a jlinked Java runtime, the few glibc libraries it and the embedded
#      PostgreSQL need (copied from this machine, found with ldd), dash as /bin/sh (pg_ctl and initdb run their
#      children through it), /etc/passwd and /etc/group with the non-root user, the /data volume, and the health
#      command; packed by mkbase.py in `docker save` format;
#   2. Jib (jib-maven-plugin buildTar, deploy/image/pom.xml) puts the packaged node (meshnode-app/target/quarkus-app)
#      on it as /app and writes meshnode-app/target/meshnode-image.tar, which `docker load` / `podman load` accept.
# usage: deploy/image/build.sh   (after ./meshnode build; `./meshnode image` does both)
# MESHNODE_IMAGE_JDK: the JDK whose runtime goes into the image (default: the java on PATH, 17 or later).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
APP="$ROOT/meshnode-app/target/quarkus-app"
WORK="$ROOT/meshnode-app/target/image"
ROOTFS="$WORK/rootfs"
IMAGE_UID=10001
IMAGE_GID=10001
[ -f "$APP/quarkus-run.jar" ] || { echo "image: no build at $APP (run ./meshnode build)" >&2; exit 1; }
JDK="${MESHNODE_IMAGE_JDK:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
[ -x "$JDK/bin/jlink" ] || { echo "image: no jlink in $JDK (set MESHNODE_IMAGE_JDK to a JDK 17+)" >&2; exit 1; }
for tool in ldd python3; do
  command -v "$tool" >/dev/null || { echo "image: $tool is needed" >&2; exit 1; }
done
SH="$(readlink -f /bin/dash 2>/dev/null || true)"
[ -x "$SH" ] || { echo "image: /bin/dash is needed (apt-get install dash)" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$ROOTFS"/{opt,bin,usr/bin,etc,tmp,data,app,opt/meshnode,lib64,lib/x86_64-linux-gnu,proc,dev,sys}
chmod 1777 "$ROOTFS/tmp"
chmod 0700 "$ROOTFS/data"

# 1a. the Java runtime: the modules the node uses (jdeps over its jars, plus the service providers jdeps cannot see:
# DNS naming, EC crypto, zip file systems, the management beans Micrometer reads)
MODULES=${MESHNODE_IMAGE_MODULES:-java.base,java.compiler,java.datatransfer,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,java.xml.crypto,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.management,jdk.naming.dns,jdk.net,jdk.unsupported,jdk.zipfs,jdk.localedata}
"$JDK/bin/jlink" --add-modules "$MODULES" --include-locales=en --strip-debug --no-man-pages --no-header-files \
  --compress=2 --output "$ROOTFS/opt/java"
# the class-data sharing archive of this runtime (faster start); best effort
"$ROOTFS/opt/java/bin/java" -Xshare:dump -XX:SharedArchiveFile="$ROOTFS/opt/java/lib/server/classes.jsa" >/dev/null 2>&1 || true

# 1b. the shared libraries: what the runtime links (ldd), and what the embedded PostgreSQL binaries and the JNI
# libraries in the node's jars (secp256k1, wasmtime, netty) link besides their own (libstdc++, libgcc_s, librt...)
cp "$SH" "$ROOTFS/bin/sh"
libs=$( { find "$ROOTFS/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -print0 | xargs -0 ldd 2>/dev/null; ldd "$SH"; } \
  | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/lib64\// {print $1}' | sort -u)
extra="libstdc++.so.6 libgcc_s.so.1 libdl.so.2 libpthread.so.0 librt.so.1 libm.so.6 libz.so.1 libc.so.6"
for l in $extra; do libs="$libs $(ldconfig -p | awk -v n="$l" '$1 == n && $0 ~ /x86-64/ && !found {print $NF; found = 1}')"; done
for l in $libs; do
  case "$l" in
    "$ROOTFS"/*) ;;  # the runtime's own libraries, already in place
    /lib64/*) cp -L "$l" "$ROOTFS/lib64/" ;;
    *) cp -L "$l" "$ROOTFS/lib/x86_64-linux-gnu/" ;;
  esac
done
# the loader's cache, so nothing depends on the loader's built-in search path; with the runtime's own directory in it,
# java finds libjli.so without resolving $ORIGIN (which reads /proc/self/exe: a process without /proc would not)
printf '/lib/x86_64-linux-gnu\n/opt/java/lib\n' > "$ROOTFS/etc/ld.so.conf"
ldconfig -r "$ROOTFS"

# 1c. users, name resolution (the runtime mounts its own /etc/hosts and /etc/resolv.conf over these)
cat > "$ROOTFS/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/usr/sbin/nologin
meshnode:x:$IMAGE_UID:$IMAGE_GID:fleetmesh node:/data:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
PASSWD
cat > "$ROOTFS/etc/group" <<GROUP
root:x:0:
meshnode:x:$IMAGE_GID:
nogroup:x:65534:
GROUP
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$ROOTFS/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$ROOTFS/etc/nsswitch.conf"

# 1d. the health command (HealthProbe.java: GET /q/health/ready, exit 0 on 200)
"$JDK/bin/javac" --release 17 -d "$ROOTFS/opt/meshnode" "$ROOT/deploy/image/HealthProbe.java"
HEALTH='{"Test":["CMD","/opt/java/bin/java","-XX:TieredStopAtLevel=1","-XX:+UseSerialGC","-Xmx16m","-Xss256k","-cp","/opt/meshnode","HealthProbe"],"Interval":30000000000,"Timeout":10000000000,"StartPeriod":120000000000,"Retries":3}'
python3 "$ROOT/deploy/image/mkbase.py" "$ROOTFS" "$WORK/base.tar" "$IMAGE_UID" "$IMAGE_GID" "$HEALTH"

# 2. Jib: the node on the base, to a tarball (no daemon, no registry: the base is a local tar)
VERSION=$(cd "$ROOT" && sed -n 's:.*<version>\(.*\)</version>.*:\1:p' pom.xml | head -1)
mkdir -p "$ROOT/deploy/image/target/classes"  # Jib wants the (empty) build output of its project
(cd "$ROOT/deploy/image" && mvn -B -ntp -q ${MESHNODE_MVN_OPTS:-} jib:buildTar \
  -Dimage.base="$WORK/base.tar" -Dimage.app="$APP" -Dimage.out="$ROOT/meshnode-app/target/meshnode-image.tar" \
  -Dimage.version="$VERSION")
ls -l "$ROOT/meshnode-app/target/meshnode-image.tar" >&2
echo "image: $ROOT/meshnode-app/target/meshnode-image.tar (fleetmesh/meshnode:$VERSION); docker load -i it" >&2
