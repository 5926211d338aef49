package org.fleetmesh.peering;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Initiator to responder, last: both proofs verified, the link is up. {@code ["MESH-OK", {"version": 1}]}. */
public record MeshOk(int version) implements MeshMessage {

    @Override
    public String type() {
        return OK;
    }

    @Override
    public String encode() {
        ObjectNode body = MeshJson.object();
        body.put("version", version);
        return MeshJson.write(MeshJson.array(OK).add(body));
    }

    static MeshOk read(ObjectNode o) throws MeshRefusedException {
        return new MeshOk(MeshJson.version(o.get("version"), OK + " \"version\""));
    }
}
