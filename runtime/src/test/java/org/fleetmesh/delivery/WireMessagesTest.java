package org.fleetmesh.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.FilterJson;
import org.fleetmesh.nostr.PubKey;
import org.junit.jupiter.api.Test;

/** MESH-FEDERATE and the custody messages: their exact text, read back, and the first rule a bad one breaks. */
class WireMessagesTest {
    static final String ID = "ab".repeat(32);

    @Test
    void federateWritesFiltersInAFixedOrderAndReadsThemBack() throws Exception {
        Filter f = new Filter(null, Set.of(PubKey.ofHex("cd".repeat(32))), Set.of(7, 1), Map.of("t", Set.of("b", "a")),
                10L, 20L, 5);
        String text = FederateMessage.encode(List.of(f, Filter.ALL));
        assertEquals("[\"MESH-FEDERATE\",[{\"authors\":[\"" + "cd".repeat(32) + "\"],\"kinds\":[1,7],\"#t\":[\"a\","
                + "\"b\"],\"since\":10,\"until\":20,\"limit\":5},{}]]", text);
        assertEquals(List.of(f, Filter.ALL), FederateMessage.parse(text, 16, FilterJson.Limits.DEFAULT));
        assertEquals(List.of(), FederateMessage.parse("[\"MESH-FEDERATE\",[]]", 16, FilterJson.Limits.DEFAULT));
    }

    @Test
    void aBadFederateSaysWhy() {
        assertEquals("invalid: MESH-FEDERATE needs an array of filters", assertThrows(FrameException.class,
                () -> FederateMessage.parse("[\"MESH-FEDERATE\",{}]", 16, FilterJson.Limits.DEFAULT)).getMessage());
        assertEquals("invalid: MESH-FEDERATE has two elements", assertThrows(FrameException.class,
                () -> FederateMessage.parse("[\"MESH-FEDERATE\",[],1]", 16, FilterJson.Limits.DEFAULT)).getMessage());
        assertEquals("invalid: MESH-FEDERATE filter 1: unknown filter field \"x\"", assertThrows(FrameException.class,
                () -> FederateMessage.parse("[\"MESH-FEDERATE\",[{},{\"x\":1}]]", 16, FilterJson.Limits.DEFAULT))
                .getMessage());
        assertEquals("invalid: MESH-FEDERATE holds at most 1 filters", assertThrows(FrameException.class,
                () -> FederateMessage.parse("[\"MESH-FEDERATE\",[{},{}]]", 1, FilterJson.Limits.DEFAULT))
                .getMessage());
    }

    @Test
    void custodyAndHeadRoundTrip() throws Exception {
        assertEquals("[\"MESH-CUSTODY\",{\"size\":0,\"head\":null}]", CustodyMessages.custody(0, null));
        assertEquals(new CustodyMessages.Custody(5, ID), CustodyMessages.parseCustody(CustodyMessages.custody(5, ID)));
        String head = CustodyMessages.head(9, ID, 12L, true);
        assertEquals("[\"MESH-CUSTODY-HEAD\",{\"size\":9,\"head\":\"" + ID + "\",\"seq\":12,\"more\":true}]", head);
        assertEquals(new CustodyMessages.Head(9, ID, 12L, true), CustodyMessages.parseHead(head));
        CustodyMessages.Head none = CustodyMessages.parseHead(CustodyMessages.head(0, null, null, false));
        assertNull(none.head());
        assertNull(none.seq());
        assertThrows(FrameException.class, () -> CustodyMessages.parseCustody("[\"MESH-CUSTODY\",{\"size\":-1}]"));
        assertThrows(FrameException.class, () -> CustodyMessages.parseCustody("[\"MESH-CUSTODY\",{\"size\":1,"
                + "\"head\":\"AB\"}]"));
    }

    @Test
    void aReceiptMessageCarriesItsEventProofAndAppendedIds() throws Exception {
        var receipt = org.fleetmesh.delivery.log.Receipt.sign(Mesh.fill(4), 1_767_225_600L, PubKey.ofHex("cd".repeat(32)),
                null, 3, 0, org.fleetmesh.delivery.log.Merkle.EMPTY_ROOT, 0, List.of());
        String text = CustodyMessages.receipt(3, true, receipt.event().json(), List.of(new byte[32]),
                List.of(EventId.ofHex(ID)));
        assertTrue(text.startsWith("[\"MESH-RECEIPT\",{\"seq\":3,\"catch_up\":true},{"), text);
        CustodyMessages.ReceiptMessage m = CustodyMessages.parseReceipt(text, 10);
        assertEquals(3, m.seq());
        assertTrue(m.catchUp());
        assertEquals(receipt.event().id(), m.receipt().id());
        assertEquals(1, m.consistency().size());
        assertEquals(List.of(EventId.ofHex(ID)), m.appended());
        assertThrows(FrameException.class, () -> CustodyMessages.parseReceipt(text, 0), "more appended ids than allowed");
    }
}
