package org.fleetmesh.identity.capability;

import static org.fleetmesh.identity.capability.CapabilityVerifierTest.refusal;
import static org.fleetmesh.identity.capability.Fixtures.EXPIRY;
import static org.fleetmesh.identity.capability.Fixtures.ISSUER;
import static org.fleetmesh.identity.capability.Fixtures.NOW;
import static org.fleetmesh.identity.capability.Fixtures.VERIFIER;
import static org.fleetmesh.identity.capability.Fixtures.WORKER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.biscuitsec.biscuit.token.UnverifiedBiscuit;
import org.biscuitsec.biscuit.token.builder.Block;
import org.fleetmesh.identity.capability.CapabilityException.Reason;
import org.junit.jupiter.api.Test;

import biscuit.format.schema.Schema;

class CapabilityTest {
    private static final String TOKEN = Fixtures.workerToken();

    /** A holder's own block, built with the Biscuit API: facts and rules, which Attenuation does not offer. */
    private static String appendRawBlock(String token, String... datalog) throws Exception {
        Block block = new Block();
        for (String statement : datalog) {
            if (statement.startsWith("check ")) {
                block.add_check(statement);
            } else if (statement.contains("<-")) {
                block.add_rule(statement);
            } else {
                block.add_fact(statement);
            }
        }
        return UnverifiedBiscuit.from_b64url(token).attenuate(block).serialize_b64url();
    }

    @Test
    void anAttenuatedTokenStillVerifiesForWhatItKeeps() {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().onlyRights(Right.COMPUTE_RUN).fuelAtMost(500));
        Authorization a = VERIFIER.authorize(narrowed, CapabilityRequest.compute(500, NOW));
        assertEquals(WORKER, a.subject());
        assertEquals(1, a.attenuations());
        assertEquals(Capability.tokenId(TOKEN), a.tokenId());
    }

    @Test
    void aLowerFuelBoundIsEnforced() {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(500));
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(narrowed, CapabilityRequest.compute(501, NOW)));
        assertEquals(Reason.FUEL_OVER_LIMIT, e.reason());
        assertEquals(List.of("block 1: check if fuel($f), $f <= 500"), e.failedChecks());
        VERIFIER.authorize(TOKEN, CapabilityRequest.compute(501, NOW));
    }

    @Test
    void aShorterExpiryIsEnforced() {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().expiresBy(NOW.plusSeconds(60)));
        VERIFIER.authorize(narrowed, CapabilityRequest.of(Right.RELAY_READ, NOW.plusSeconds(60)));
        assertEquals(Reason.EXPIRED, refusal(narrowed, CapabilityRequest.of(Right.RELAY_READ, NOW.plusSeconds(61))));
    }

    @Test
    void aLaterExpiryDoesNotExtendTheToken() {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().expiresBy(EXPIRY.plusSeconds(86_400)));
        assertEquals(Reason.EXPIRED, refusal(narrowed, CapabilityRequest.of(Right.RELAY_READ, EXPIRY.plusSeconds(1))));
    }

    @Test
    void restrictingToOneRightRefusesTheOthers() {
        String readOnly = Capability.attenuate(TOKEN, Attenuation.none().onlyRights(Right.RELAY_READ));
        VERIFIER.authorize(readOnly, CapabilityRequest.of(Right.RELAY_READ, NOW));
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(readOnly, CapabilityRequest.of(Right.RELAY_PUBLISH, NOW)));
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(readOnly, CapabilityRequest.compute(1, NOW)));
    }

    @Test
    void restrictingToARightTheTokenLacksGrantsNothing() {
        String admin = Capability.attenuate(TOKEN, Attenuation.none().onlyRights(Right.ADMIN_WRITE, Right.RELAY_READ));
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(admin, CapabilityRequest.of(Right.ADMIN_WRITE, NOW)));
        VERIFIER.authorize(admin, CapabilityRequest.of(Right.RELAY_READ, NOW));
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(admin, CapabilityRequest.of(Right.RELAY_PUBLISH, NOW)));
    }

    @Test
    void attenuationsCompose() {
        String once = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(800));
        String twice = Capability.attenuate(once, Attenuation.none().fuelAtMost(900).onlyRights(Right.COMPUTE_RUN));
        VERIFIER.authorize(twice, CapabilityRequest.compute(800, NOW));
        assertEquals(Reason.FUEL_OVER_LIMIT, refusal(twice, CapabilityRequest.compute(850, NOW)));
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(twice, CapabilityRequest.of(Right.RELAY_READ, NOW)));
        assertEquals(3, Capability.revocationIds(twice).size());
        assertEquals(Capability.revocationIds(once), Capability.revocationIds(twice).subList(0, 2));
    }

    @Test
    void bindingToAHolderNeedsThatHolderAuthenticated() {
        String bound = Capability.attenuate(TOKEN, Attenuation.none().heldBy(WORKER));
        VERIFIER.authorize(bound, CapabilityRequest.of(Right.RELAY_READ, NOW).heldBy(WORKER));
        assertEquals(Reason.WRONG_HOLDER, refusal(bound, CapabilityRequest.of(Right.RELAY_READ, NOW)));
    }

    @Test
    void aRawCheckIsEnforced() {
        String narrowed = Capability.attenuate(TOKEN,
                Attenuation.none().check("check if operation($op), $op.starts_with(\"relay:\");"));
        VERIFIER.authorize(narrowed, CapabilityRequest.of(Right.RELAY_PUBLISH, NOW));
        assertEquals(Reason.RIGHT_NOT_GRANTED, refusal(narrowed, CapabilityRequest.compute(1, NOW)));
    }

    @Test
    void aCheckOnFactsNobodyProvidesRefusesEverything() {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().check("check if resource(\"/jobs/1\")"));
        assertEquals(Reason.CHECK_FAILED, refusal(narrowed, CapabilityRequest.of(Right.RELAY_READ, NOW)));
    }

    /**
     * capabilities.md: a check that cannot be evaluated (a type error in an expression) is check-failed. The Biscuit
     * library throws an unchecked exception on this one (a string method on an integer), which was a 500 and a stack
     * trace per request before.
     */
    @Test
    void aCheckWithATypeErrorIsCheckFailed() throws Exception {
        String typeError = appendRawBlock(TOKEN, "check if fuel($f), $f.starts_with(\"a\")");
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(typeError, CapabilityRequest.compute(1, NOW)));
        assertEquals(Reason.CHECK_FAILED, e.reason(), e.getMessage());
        // the library's own text ("java.util.NoSuchElementException: get() on Left") is not what a holder is told
        assertEquals("check-failed: a check of the token cannot be evaluated: an expression applies an operation to a"
                + " value of the wrong type", e.getMessage());
        assertEquals(Reason.CHECK_FAILED, refusal(typeError, CapabilityRequest.of(Right.RELAY_READ, NOW)));
    }

    /** What the Datalog alone decides for a signed token, as if the holders' blocks were not screened first. */
    private static Reason datalogRefusal(String token, CapabilityRequest request) {
        var biscuit = VERIFIER.verifySignatures(Capability.decode(token));
        return assertThrows(CapabilityException.class,
                () -> VERIFIER.decide(biscuit, request, Capability.revocationIds(token))).reason();
    }

    @Test
    void aHoldersBlockWithFactsOrRulesIsRefused() throws Exception {
        CapabilityRequest read = CapabilityRequest.of(Right.RELAY_READ, NOW);
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> VERIFIER.authorize(appendRawBlock(TOKEN, "right(\"admin:write\")"), read));
        assertEquals(Reason.MALFORMED, e.reason());
        assertTrue(e.getMessage().contains("block 1 has 1 facts and 0 rules"), e.getMessage());
        assertEquals(Reason.MALFORMED, refusal(appendRawBlock(TOKEN, "right($op) <- operation($op)"), read));
    }

    @Test
    void aHolderCannotWidenWithFactsOrRulesEvenPastTheScreen() throws Exception {
        String widened = appendRawBlock(TOKEN, "right(\"admin:write\")", "right(\"peer:sync\")",
                "fuel_limit(1000000000)", "subject(\"did:key:z6Mkmallory\")",
                "right($op) <- operation($op)", "fuel_limit($f) <- fuel($f)");
        assertEquals(Reason.RIGHT_NOT_GRANTED, datalogRefusal(widened, CapabilityRequest.of(Right.ADMIN_WRITE, NOW)));
        assertEquals(Reason.RIGHT_NOT_GRANTED, datalogRefusal(widened, CapabilityRequest.of(Right.PEER_SYNC, NOW)));
        assertEquals(Reason.FUEL_OVER_LIMIT, datalogRefusal(widened, CapabilityRequest.compute(1001, NOW)));
        assertEquals(Reason.WRONG_HOLDER, datalogRefusal(widened,
                CapabilityRequest.of(Right.RELAY_READ, NOW).heldBy("did:key:z6Mkmallory")));
        var biscuit = VERIFIER.verifySignatures(Capability.decode(widened));
        assertEquals(WORKER, VERIFIER.decide(biscuit, CapabilityRequest.compute(1000, NOW),
                Capability.revocationIds(widened)).subject());
    }

    @Test
    void aHolderCannotExtendTheExpiryWithATimeFactEvenPastTheScreen() throws Exception {
        String widened = appendRawBlock(TOKEN, "time(2026-05-01T00:00:00Z)");
        assertEquals(Reason.EXPIRED, datalogRefusal(widened, CapabilityRequest.of(Right.RELAY_READ, EXPIRY.plusSeconds(1))));
    }

    @Test
    void aLaterHolderCannotSatisfyAnEarlierHoldersCheckEvenPastTheScreen() throws Exception {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(10));
        String widened = appendRawBlock(narrowed, "fuel(5)");
        assertEquals(Reason.FUEL_OVER_LIMIT, datalogRefusal(widened, CapabilityRequest.compute(11, NOW)));
    }

    @Test
    void refusesMoreBlocksOrChecksThanTheProfileAllows() throws Exception {
        String token = TOKEN;
        for (int i = 1; i < TokenShape.MAX_BLOCKS; i++) {
            token = Capability.attenuate(token, Attenuation.none().fuelAtMost(1000 - i));
        }
        VERIFIER.authorize(token, CapabilityRequest.compute(985, NOW));
        String full = token;
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> Capability.attenuate(full, Attenuation.none().fuelAtMost(1)));
        assertEquals(Reason.TOO_COMPLEX, e.reason());
        assertEquals(Reason.TOO_COMPLEX, refusal(appendRawBlock(full, "check if fuel($f), $f <= 1"),
                CapabilityRequest.compute(1, NOW)));

        Attenuation many = Attenuation.none();
        for (int i = 0; i <= TokenShape.MAX_CHECKS; i++) {
            many = many.fuelAtMost(i + 100);
        }
        Attenuation tooMany = many;
        assertEquals(Reason.TOO_COMPLEX, assertThrows(CapabilityException.class,
                () -> Capability.attenuate(TOKEN, tooMany)).reason());
    }

    @Test
    void refusesAHoldersCheckWithTooManyPredicates() throws Exception {
        String wide = appendRawBlock(TOKEN, "check if right($a), right($b), right($c), right($d), right($e)");
        assertEquals(Reason.TOO_COMPLEX, refusal(wide, CapabilityRequest.of(Right.RELAY_READ, NOW)));
    }

    @Test
    void strippingAHoldersBlockBreaksTheSignatureChain() throws Exception {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(10));
        Schema.Biscuit parsed = Schema.Biscuit.parseFrom(Capability.decode(narrowed));
        byte[] stripped = parsed.toBuilder().removeBlocks(0).build().toByteArray();
        String token = java.util.Base64.getUrlEncoder().encodeToString(stripped);
        assertEquals(Reason.BAD_SIGNATURE, refusal(token, CapabilityRequest.compute(11, NOW)));
    }

    @Test
    void revokingTheTokenIdRevokesItsAttenuations() {
        String narrowed = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(10));
        CapabilityVerifier verifier = VERIFIER.revoking(RevocationList.empty().with(Capability.tokenId(TOKEN)));
        assertEquals(Reason.REVOKED, refusal(verifier, narrowed, CapabilityRequest.compute(1, NOW)));
    }

    @Test
    void revokingAnAttenuationLeavesTheOriginalAndOtherBranches() {
        String branchA = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(10));
        String branchB = Capability.attenuate(TOKEN, Attenuation.none().fuelAtMost(10));
        RevocationId blockId = Capability.revocationIds(branchA).get(1);
        assertNotEquals(blockId, Capability.revocationIds(branchB).get(1));
        CapabilityVerifier verifier = VERIFIER.revoking(RevocationList.of(List.of(blockId)));

        CapabilityException e = assertThrows(CapabilityException.class,
                () -> verifier.authorize(branchA, CapabilityRequest.compute(1, NOW)));
        assertEquals(Reason.REVOKED, e.reason());
        assertTrue(e.getMessage().contains("block 1"), e.getMessage());
        String deeper = Capability.attenuate(branchA, Attenuation.none().fuelAtMost(5));
        assertEquals(Reason.REVOKED, refusal(verifier, deeper, CapabilityRequest.compute(1, NOW)));
        verifier.authorize(branchB, CapabilityRequest.compute(1, NOW));
        verifier.authorize(TOKEN, CapabilityRequest.compute(1, NOW));
    }

    @Test
    void revocationIdsAreTheBlockSignaturesAuthorityFirst() {
        List<RevocationId> ids = Capability.revocationIds(TOKEN);
        assertEquals(1, ids.size());
        assertEquals(64, ids.get(0).bytes().length);
        assertEquals(ids.get(0), RevocationId.fromHex(ids.get(0).hex()));
    }

    @Test
    void attenuatingAForgedTokenDoesNotMakeItValid() {
        String forged = new CapabilityIssuer(Fixtures.OTHER_ROOT, "did:example:forger")
                .issue(WORKER, Rights.of(Right.ADMIN_WRITE), EXPIRY);
        String narrowed = Capability.attenuate(forged, Attenuation.none().onlyRights(Right.ADMIN_WRITE));
        assertEquals(Reason.BAD_SIGNATURE, refusal(narrowed, CapabilityRequest.of(Right.ADMIN_WRITE, NOW)));
    }

    @Test
    void refusesAnEmptyOrInvalidAttenuation() {
        assertThrows(IllegalArgumentException.class, () -> Capability.attenuate(TOKEN, Attenuation.none()));
        assertThrows(IllegalArgumentException.class, () -> Attenuation.none().check("allow if true"));
        assertThrows(IllegalArgumentException.class, () -> Attenuation.none().check("check if"));
        assertThrows(IllegalArgumentException.class, () -> Attenuation.none().check("check if a(1) b(2)"));
        assertThrows(IllegalArgumentException.class, () -> Attenuation.none().fuelAtMost(-1));
    }

    @Test
    void refusesToAttenuateWhatIsNotAToken() {
        CapabilityException e = assertThrows(CapabilityException.class,
                () -> Capability.attenuate("bm90IGEgdG9rZW4", Attenuation.none().fuelAtMost(1)));
        assertEquals(Reason.MALFORMED, e.reason());
    }

    @Test
    void theSameAttenuationSpellsTheSameChecks() {
        Attenuation a = Attenuation.none().onlyRights(Right.RELAY_READ, Right.COMPUTE_RUN).fuelAtMost(5)
                .expiresBy(NOW).heldBy(WORKER);
        assertEquals(List.of("check if operation($op), [\"compute:run\", \"relay:read\"].contains($op)",
                "check if fuel($f), $f <= 5", "check if time($t), $t <= 2026-05-01T12:00:00Z",
                "check if holder(\"" + WORKER + "\")"), a.checks());
        assertEquals(ISSUER.issuer(), Fixtures.NODE.shortForm());
    }
}
