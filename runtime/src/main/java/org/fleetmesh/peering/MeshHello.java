package org.fleetmesh.peering;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Responder to initiator, first, on every connection:
 * {@code ["MESH-HELLO", {"versions": [1], "did": ..., "challenge": ..., "time": ..., "from_prior": ...}]}.
 *
 * @param versions the protocol versions the responder speaks
 * @param did the responder's DID (did:peer:4 long form for a meshnode)
 * @param challenge fresh for this connection; the initiator's proof answers it
 * @param time the responder's clock, seconds since 1970
 * @param fromPrior the responder's key hand-over from its previous DID ({@link org.fleetmesh.identity.KeyHandover}),
 *        when it rotated its keys (docs/spec/mesh-link.md, "Key hand-over")
 */
public record MeshHello(List<Integer> versions, String did, Challenge challenge, long time, Optional<String> fromPrior)
        implements MeshMessage {
    public MeshHello {
        versions = List.copyOf(versions);
        Objects.requireNonNull(fromPrior, "fromPrior");
    }

    public MeshHello(List<Integer> versions, String did, Challenge challenge, long time) {
        this(versions, did, challenge, time, Optional.empty());
    }

    @Override
    public String type() {
        return HELLO;
    }

    @Override
    public String encode() {
        ObjectNode body = MeshJson.object();
        ArrayNode vs = body.putArray("versions");
        versions.forEach(vs::add);
        body.put("did", did);
        body.put("challenge", challenge.hex());
        body.put("time", time);
        fromPrior.ifPresent(j -> body.put("from_prior", j));
        return MeshJson.write(MeshJson.array(HELLO).add(body));
    }

    static MeshHello read(ObjectNode o) throws MeshRefusedException {
        return new MeshHello(MeshJson.versions(o, HELLO, "versions"), MeshJson.string(o, HELLO, "did", "a DID string"),
                Challenge.ofHex(MeshJson.hex(o, HELLO, "challenge", Challenge.LENGTH)), MeshJson.time(o, HELLO, "time"),
                MeshJson.optionalString(o, HELLO, "from_prior", "a JWT string"));
    }
}
