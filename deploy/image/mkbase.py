#!/usr/bin/env python3
"""Packs a root file system into a one-layer base image in `docker save` format (manifest.json, the config, the
layer), which Jib reads as a `tar://` base. Every file is owned by root except the volume (the image's user owns
it), times are zero: the same rootfs gives the same bytes, so the same digest.

usage: mkbase.py ROOTFS OUT.tar UID GID HEALTHCHECK_JSON
"""
import hashlib
import io
import json
import os
import sys
import tarfile

rootfs, out, uid, gid, health = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
OWNED = ("data",)  # paths (relative, no leading ./) the image's user owns


def normalise(info):
    name = info.name[2:] if info.name.startswith("./") else info.name
    owned = any(name == p or name.startswith(p + "/") for p in OWNED)
    info.uid, info.gid = (uid, gid) if owned else (0, 0)
    info.uname = info.gname = ""
    info.mtime = 0
    return info


layer = io.BytesIO()
with tarfile.open(fileobj=layer, mode="w", format=tarfile.PAX_FORMAT) as t:
    def add(path, arc):
        info = normalise(t.gettarinfo(path, arcname=arc))
        if info.isreg():
            with open(path, "rb") as f:
                t.addfile(info, f)
        else:
            t.addfile(info)
        if os.path.isdir(path) and not os.path.islink(path):
            for child in sorted(os.listdir(path)):
                add(os.path.join(path, child), arc + "/" + child)
    for child in sorted(os.listdir(rootfs)):
        add(os.path.join(rootfs, child), child)
layer_bytes = layer.getvalue()
diff_id = "sha256:" + hashlib.sha256(layer_bytes).hexdigest()

config = {
    "architecture": "amd64",
    "os": "linux",
    "created": "1970-01-01T00:00:00Z",
    "config": {
        "User": f"{uid}:{gid}",
        "Env": [
            "PATH=/opt/java/bin:/usr/bin:/bin",
            "JAVA_HOME=/opt/java",
            "LANG=C.UTF-8",
        ],
        "WorkingDir": "/data",
        "Volumes": {"/data": {}},
        "Healthcheck": json.loads(health),
    },
    "rootfs": {"type": "layers", "diff_ids": [diff_id]},
    "history": [{"created": "1970-01-01T00:00:00Z",
                 "created_by": "deploy/image/build.sh: jlinked JRE, glibc libraries, dash, passwd/group"}],
}
config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
manifest = [{"Config": config_name, "RepoTags": ["fleetmesh/meshnode-base:local"], "Layers": ["layer.tar"]}]
manifest_bytes = json.dumps(manifest).encode()

with tarfile.open(out, mode="w", format=tarfile.PAX_FORMAT) as t:
    for name, data in (("layer.tar", layer_bytes), (config_name, config_bytes), ("manifest.json", manifest_bytes)):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        info.mode = 0o644
        t.addfile(info, io.BytesIO(data))
print(f"base image {out}: layer {len(layer_bytes) // 1024} KiB, {diff_id}")
