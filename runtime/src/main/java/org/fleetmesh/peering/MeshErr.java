package org.fleetmesh.peering;

/**
 * Either side, instead of its next message: {@code ["MESH-ERR", "<word>: <detail>"]}; during the handshake the
 * sender then closes with 1008. It is never answered with another MESH-ERR.
 */
public record MeshErr(String reason) implements MeshMessage {

    public static MeshErr of(Refusal refusal) {
        return new MeshErr(refusal.reason());
    }

    @Override
    public String type() {
        return ERR;
    }

    @Override
    public String encode() {
        return MeshJson.write(MeshJson.array(ERR).add(reason));
    }
}
