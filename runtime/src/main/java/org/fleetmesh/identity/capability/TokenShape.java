package org.fleetmesh.identity.capability;

import org.fleetmesh.identity.capability.CapabilityException.Reason;

import com.google.protobuf.InvalidProtocolBufferException;

import biscuit.format.schema.Schema;

/**
 * The fleetmesh token profile, checked on the protobuf before any signature or Datalog: holders' blocks carry
 * checks only, and few and small ones. Biscuit's own run limits do not bound the evaluation of a single check
 * (its clock is read between queries), and a check costs the product of the matches of its predicates: four
 * {@code right($x)} predicates over six rights are 1296 matches, 8 such checks 70 ms. With no facts in holders'
 * blocks and these limits, a check has at most 2 x 6^2 matches to try and a token at most 16 checks, about a
 * millisecond at worst; the vocabulary's checks need one or two predicates.
 */
final class TokenShape {
    static final int MAX_BLOCKS = 16;
    static final int MAX_CHECKS = 16;
    static final int MAX_QUERIES = 2;
    static final int MAX_PREDICATES = 2;
    static final int MAX_OPS = 16;

    private TokenShape() {
    }

    /** @throws CapabilityException malformed (not a Biscuit, or outside the profile) or too complex */
    static void check(byte[] token) {
        Schema.Biscuit biscuit;
        try {
            biscuit = Schema.Biscuit.parseFrom(token);
        } catch (InvalidProtocolBufferException e) {
            throw new CapabilityException(Reason.MALFORMED, "not a Biscuit token: " + e.getMessage(), e);
        }
        if (biscuit.getBlocksCount() + 1 > MAX_BLOCKS) {
            throw new CapabilityException(Reason.TOO_COMPLEX, "the token has " + (biscuit.getBlocksCount() + 1)
                    + " blocks, more than " + MAX_BLOCKS);
        }
        int checks = 0;
        for (int i = 0; i < biscuit.getBlocksCount(); i++) {
            int index = i + 1;
            Schema.SignedBlock signed = biscuit.getBlocks(i);
            if (signed.hasExternalSignature()) {
                throw outsideProfile(index, "is a third-party block");
            }
            Schema.Block block;
            try {
                block = Schema.Block.parseFrom(signed.getBlock());
            } catch (InvalidProtocolBufferException e) {
                throw new CapabilityException(Reason.MALFORMED, "block " + index + " is not a Biscuit block: "
                        + e.getMessage(), e);
            }
            if (block.getFactsV2Count() > 0 || block.getRulesV2Count() > 0) {
                throw outsideProfile(index, "has " + block.getFactsV2Count() + " facts and " + block.getRulesV2Count()
                        + " rules");
            }
            checks += block.getChecksV2Count();
            if (checks > MAX_CHECKS) {
                throw new CapabilityException(Reason.TOO_COMPLEX, "the holders' blocks have more than " + MAX_CHECKS
                        + " checks");
            }
            for (Schema.CheckV2 check : block.getChecksV2List()) {
                if (check.getQueriesCount() > MAX_QUERIES) {
                    throw tooComplex(index, check.getQueriesCount() + " alternatives in a check", MAX_QUERIES);
                }
                for (Schema.RuleV2 query : check.getQueriesList()) {
                    if (query.getBodyCount() > MAX_PREDICATES) {
                        throw tooComplex(index, query.getBodyCount() + " predicates in a check", MAX_PREDICATES);
                    }
                    int ops = query.getExpressionsList().stream().mapToInt(Schema.ExpressionV2::getOpsCount).sum();
                    if (ops > MAX_OPS) {
                        throw tooComplex(index, ops + " expression operations in a check", MAX_OPS);
                    }
                }
            }
        }
    }

    private static CapabilityException outsideProfile(int block, String what) {
        return new CapabilityException(Reason.MALFORMED, "block " + block + " " + what
                + "; a holder's block in a fleetmesh token holds checks only");
    }

    private static CapabilityException tooComplex(int block, String what, int max) {
        return new CapabilityException(Reason.TOO_COMPLEX, "block " + block + " has " + what + ", more than " + max);
    }
}
