package org.fleetmesh.settlement.cashu.conditions;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import org.fleetmesh.nostr.Hex;
import org.fleetmesh.settlement.cashu.nut.BlindedMessage;
import org.fleetmesh.settlement.cashu.nut.Nut;
import org.fleetmesh.settlement.cashu.nut.Proof;
import org.fleetmesh.settlement.cashu.nut.Vectors;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** Every case of tests/11-test.md (nut11-p2pk.json). */
class P2pkVectorsTest {
    static final JsonNode V = Vectors.load("nut11-p2pk.json");
    static final long NOW = V.get("now").asLong();

    static Proof proof(JsonNode n) throws Exception {
        return Nut.json().treeToValue(n, Proof.class);
    }

    static List<Proof> inputs(JsonNode request) throws Exception {
        List<Proof> l = new ArrayList<>();
        for (JsonNode p : request.get("inputs")) {
            l.add(proof(p));
        }
        return l;
    }

    static List<BlindedMessage> outputs(JsonNode request) throws Exception {
        List<BlindedMessage> l = new ArrayList<>();
        for (JsonNode o : request.get("outputs")) {
            l.add(Nut.json().treeToValue(o, BlindedMessage.class));
        }
        return l;
    }

    static String quote(JsonNode request) {
        return request.hasNonNull("quote") ? request.get("quote").asText() : null;
    }

    @Test
    void sigInputsAndMultisigProofVectors() throws Exception {
        assertEquals(9, V.get("proofs").size());
        for (JsonNode v : V.get("proofs")) {
            Proof p = proof(v.get("proof"));
            Verdict alone = P2pk.verify(p, NOW);
            assertEquals(v.get("valid").asBoolean(), alone.ok(), v.get("name").asText() + ": " + alone.reason());
            Verdict tx = SpendingConditions.verify(List.of(p), List.of(), null, NOW);
            assertEquals(v.get("valid").asBoolean(), tx.ok(), v.get("name").asText() + ": " + tx.reason());
        }
    }

    @Test
    void sigAllRequestVectors() throws Exception {
        assertEquals(11, V.get("sig_all").size());
        for (JsonNode v : V.get("sig_all")) {
            JsonNode r = v.get("request");
            Verdict verdict = SpendingConditions.verify(inputs(r), outputs(r), quote(r), NOW);
            assertEquals(v.get("valid").asBoolean(), verdict.ok(), v.get("name").asText() + ": " + verdict.reason());
        }
    }

    @Test
    void sigAllMessagesMatchTheVectors() throws Exception {
        int n = 0;
        for (JsonNode v : V.get("sig_all")) {
            if (!v.has("msg")) {
                continue;
            }
            JsonNode r = v.get("request");
            String msg = P2pk.sigAllMessage(inputs(r), outputs(r), quote(r));
            assertEquals(v.get("msg").asText(), msg, v.get("name").asText());
            assertEquals(v.get("msg_sha256").asText(), Hex.encode(
                    MessageDigest.getInstance("SHA-256").digest(msg.getBytes(StandardCharsets.UTF_8))));
            n++;
        }
        assertEquals(2, n);
    }

    @Test
    void sigAllProofsCannotBeCheckedAlone() throws Exception {
        Proof first = inputs(V.get("sig_all").get(1).get("request")).get(0);
        Verdict v = P2pk.verify(first, NOW);
        assertEquals(false, v.ok());
        assertEquals("SIG_ALL: the proof can only be checked with its whole transaction", v.reason());
    }
}
