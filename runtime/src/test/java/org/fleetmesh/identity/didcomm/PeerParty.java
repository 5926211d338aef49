package org.fleetmesh.identity.didcomm;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fleetmesh.identity.DidPeer2;
import org.fleetmesh.identity.DidPeer2.Purpose;
import org.fleetmesh.identity.DidPeer2.PurposedKey;

/** A did:peer:2 agent made up for a test: one Ed25519 signing key (#key-1) and {@code n} X25519 keys (#key-2...). */
final class PeerParty {
    private static final SecureRandom RANDOM = new SecureRandom();

    final String did;
    final Ed25519Secret signing;
    final List<X25519Secret> agreement;

    private PeerParty(String did, Ed25519Secret signing, List<X25519Secret> agreement) {
        this.did = did;
        this.signing = signing;
        this.agreement = agreement;
    }

    static PeerParty withAgreementKeys(int n) {
        Ed25519Secret signing = Ed25519Secret.generate(RANDOM);
        List<X25519Secret> agreement = new ArrayList<>();
        List<PurposedKey> keys = new ArrayList<>(List.of(new PurposedKey(Purpose.AUTHENTICATION, signing.publicKey())));
        for (int i = 0; i < n; i++) {
            X25519Secret s = X25519Secret.generate(RANDOM);
            agreement.add(s);
            keys.add(new PurposedKey(Purpose.KEY_AGREEMENT, s.publicKey()));
        }
        return new PeerParty(DidPeer2.create(keys, List.of()), signing, List.copyOf(agreement));
    }

    String signingKid() {
        return did + "#key-1";
    }

    /** The kid of the i-th X25519 key, from 0. */
    String agreementKid(int i) {
        return did + "#key-" + (i + 2);
    }

    SecretResolver secrets() {
        Map<String, Secret> map = new HashMap<>();
        map.put(signingKid(), signing);
        for (int i = 0; i < agreement.size(); i++) {
            map.put(agreementKid(i), agreement.get(i));
        }
        return SecretResolver.of(map);
    }
}
