package org.fleetmesh.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Client messages (NIP-01, NIP-42 AUTH, NIP-45 COUNT): what parses, and how refusals are reported. */
class MessageParserTest {
    private static final MessageParser PARSER = new MessageParser(MessageParser.Limits.DEFAULT);
    private static final Event EV = Events.sign(EventsTest.SECRET, 1700000000L, 1,
            List.of(List.of("e", "3de94ee418667f1567a79eb4c76ff788e39a4caf1947d5ec75fcda15d8920b0b"),
                    List.of("t", "nostr")),
            "hello\n\"relay\"");
    private static final String ID = EV.id().hex();
    private static final String HEX64 = "5c83da77af1dec6d7289834998ad7aafbd9e2191396d75ec3cc27f5a77226f36";
    private static final String HEX64B = "f7234bd4c1394dda46d09f35bd384dd30cc552ad5541990f98844fb06676e9ca";

    /** The valid event's fields as raw JSON values, in wire order; callers change or drop some. */
    private static Map<String, String> fields() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("id", "\"" + ID + "\"");
        m.put("pubkey", "\"" + EV.pubkey().hex() + "\"");
        m.put("created_at", Long.toString(EV.createdAt()));
        m.put("kind", Integer.toString(EV.kind()));
        m.put("tags", "[[\"e\",\"3de94ee418667f1567a79eb4c76ff788e39a4caf1947d5ec75fcda15d8920b0b\"],[\"t\",\"nostr\"]]");
        m.put("content", NostrJson.quote(EV.content()));
        m.put("sig", "\"" + EV.sig().hex() + "\"");
        return m;
    }

    private static String object(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> "\"" + e.getKey() + "\":" + e.getValue())
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static String eventWith(String field, String rawValue) {
        Map<String, String> m = fields();
        m.put(field, rawValue);
        return "[\"EVENT\"," + object(m) + "]";
    }

    private static String eventWithout(String field) {
        Map<String, String> m = fields();
        m.remove(field);
        return "[\"EVENT\"," + object(m) + "]";
    }

    private static ProtocolException refused(String text) {
        return refused(PARSER, text);
    }

    private static ProtocolException refused(MessageParser parser, String text) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> parser.parse(text), text);
        assertTrue(e.getMessage().startsWith("invalid: ") || e.getMessage().startsWith("unsupported: "),
                "NIP-01 prefix expected: " + e.getMessage());
        return e;
    }

    /** A refusal answered with NOTICE: neither an event id nor a subscription id to refer to. */
    private static ProtocolException notice(String text) {
        ProtocolException e = refused(text);
        assertTrue(e.getMessage().startsWith("invalid: "), e.getMessage());
        assertNull(e.verb(), "verb");
        assertNull(e.eventId(), "eventId");
        assertNull(e.subscriptionId(), "subscriptionId");
        return e;
    }

    /** A refusal of an EVENT that carries a well-formed id, so the relay can answer OK false. */
    private static ProtocolException eventRefusal(String text, String message) {
        ProtocolException e = refused(text);
        assertEquals(message, e.getMessage());
        assertEquals("EVENT", e.verb());
        assertEquals(ID, e.eventId());
        assertNull(e.subscriptionId());
        return e;
    }

    /** A refusal of a REQ with a readable subscription id, so the relay can answer CLOSED. */
    private static ProtocolException reqRefusal(String filters, String message) {
        ProtocolException e = refused("[\"REQ\",\"sub1\"," + filters + "]");
        assertEquals(message, e.getMessage());
        assertEquals("REQ", e.verb());
        assertEquals("sub1", e.subscriptionId());
        assertNull(e.eventId());
        return e;
    }

    private static Filter onlyFilter(String filterJson) throws ProtocolException {
        ClientMessage.Req r = (ClientMessage.Req) PARSER.parse("[\"REQ\",\"sub1\"," + filterJson + "]");
        assertEquals(1, r.filters().size());
        return r.filters().get(0);
    }

    // --- messages that parse ---------------------------------------------------------------

    @Test
    void eventParsesWithEveryField() throws ProtocolException {
        ClientMessage m = PARSER.parse("[\"EVENT\"," + EV.json() + "]");
        Event e = assertInstanceOf(ClientMessage.EventMessage.class, m).event();
        assertEquals(EV.id(), e.id());
        assertEquals(EV.pubkey(), e.pubkey());
        assertEquals(1700000000L, e.createdAt());
        assertEquals(1, e.kind());
        assertEquals(EV.tags(), e.tags());
        assertEquals("hello\n\"relay\"", e.content());
        assertEquals(EV.sig(), e.sig());
        assertNull(Events.verify(e));
    }

    @Test
    void eventFieldsMayComeInAnyOrder() throws ProtocolException {
        Map<String, String> f = fields();
        Map<String, String> reversed = new LinkedHashMap<>();
        List<String> keys = new java.util.ArrayList<>(f.keySet());
        java.util.Collections.reverse(keys);
        keys.forEach(k -> reversed.put(k, f.get(k)));
        Event e = ((ClientMessage.EventMessage) PARSER.parse("[\"EVENT\"," + object(reversed) + "]")).event();
        assertEquals(EV.id(), e.id());
        assertNull(Events.verify(e));
    }

    @Test
    void eventIgnoresUnknownFields() throws ProtocolException {
        Event e = ((ClientMessage.EventMessage) PARSER.parse(eventWith("seen_on", "{\"relays\":[1,2,[3]]}"))).event();
        assertEquals(EV.id(), e.id());
    }

    @Test
    void eventDecodesJsonEscapesInContent() throws ProtocolException {
        Event e = ((ClientMessage.EventMessage) PARSER.parse(eventWith("content", "\"a\\u0001\\/b\\u00e9\""))).event();
        assertEquals("a\u0001/b\u00e9", e.content());
    }

    @Test
    void eventAcceptsKindBounds() throws ProtocolException {
        assertEquals(65535, ((ClientMessage.EventMessage) PARSER.parse(eventWith("kind", "65535"))).event().kind());
        assertEquals(0, ((ClientMessage.EventMessage) PARSER.parse(eventWith("kind", "0"))).event().kind());
    }

    @Test
    void eventAcceptsCreatedAtZero() throws ProtocolException {
        assertEquals(0L, ((ClientMessage.EventMessage) PARSER.parse(eventWith("created_at", "0"))).event().createdAt());
    }

    @Test
    void eventAcceptsEmptyTags() throws ProtocolException {
        assertEquals(List.of(), ((ClientMessage.EventMessage) PARSER.parse(eventWith("tags", "[]"))).event().tags());
    }

    @Test
    void messageMayBeSurroundedByWhitespace() throws ProtocolException {
        assertInstanceOf(ClientMessage.Close.class, PARSER.parse(" \n[ \"CLOSE\" , \"s\" ]\n "));
    }

    @Test
    void authParses() throws ProtocolException {
        ClientMessage m = PARSER.parse("[\"AUTH\"," + EV.json() + "]");
        assertEquals(EV.id(), assertInstanceOf(ClientMessage.Auth.class, m).event().id());
    }

    @Test
    void reqParsesSeveralFilters() throws ProtocolException {
        ClientMessage m = PARSER.parse("[\"REQ\",\"sub1\","
                + "{\"ids\":[\"" + HEX64 + "\"],\"authors\":[\"" + HEX64B + "\",\"" + HEX64 + "\"]},"
                + "{\"kinds\":[1,30023],\"#e\":[\"" + HEX64 + "\"],\"#p\":[\"" + HEX64B + "\"],\"since\":10,\"until\":20,\"limit\":5},"
                + "{}]");
        ClientMessage.Req r = assertInstanceOf(ClientMessage.Req.class, m);
        assertEquals("sub1", r.subscriptionId());
        assertEquals(3, r.filters().size());

        Filter a = r.filters().get(0);
        assertEquals(Set.of(EventId.ofHex(HEX64)), a.ids());
        assertEquals(Set.of(PubKey.ofHex(HEX64B), PubKey.ofHex(HEX64)), a.authors());
        assertNull(a.kinds());
        assertEquals(Map.of(), a.tags());
        assertNull(a.since());
        assertNull(a.until());
        assertNull(a.limit());

        Filter b = r.filters().get(1);
        assertNull(b.ids());
        assertNull(b.authors());
        assertEquals(Set.of(1, 30023), b.kinds());
        assertEquals(Map.of("e", Set.of(HEX64), "p", Set.of(HEX64B)), b.tags());
        assertEquals(10L, b.since());
        assertEquals(20L, b.until());
        assertEquals(5, b.limit());

        assertEquals(Filter.ALL, r.filters().get(2));
    }

    @Test
    void countParses() throws ProtocolException {
        ClientMessage m = PARSER.parse("[\"COUNT\",\"c1\",{\"kinds\":[7]},{\"authors\":[\"" + HEX64 + "\"]}]");
        ClientMessage.Count c = assertInstanceOf(ClientMessage.Count.class, m);
        assertEquals("c1", c.subscriptionId());
        assertEquals(2, c.filters().size());
        assertEquals(Set.of(7), c.filters().get(0).kinds());
    }

    @Test
    void closeParses() throws ProtocolException {
        assertEquals(new ClientMessage.Close("sub1"), PARSER.parse("[\"CLOSE\",\"sub1\"]"));
    }

    @Test
    void subscriptionIdOf64CharactersIsAccepted() throws ProtocolException {
        String sub = "s".repeat(64);
        assertEquals(sub, ((ClientMessage.Req) PARSER.parse("[\"REQ\",\"" + sub + "\",{}]")).subscriptionId());
    }

    @Test
    void singleLetterTagFilterIsAccepted() throws ProtocolException {
        assertEquals(Map.of("e", Set.of(HEX64)), onlyFilter("{\"#e\":[\"" + HEX64 + "\"]}").tags());
    }

    @Test
    void upperCaseSingleLetterTagFilterIsAccepted() throws ProtocolException {
        assertEquals(Map.of("T", Set.of("x")), onlyFilter("{\"#T\":[\"x\"]}").tags());
    }

    @Test
    void emptyListsAreKeptAsMatchingNothing() throws ProtocolException {
        Filter f = onlyFilter("{\"ids\":[],\"#t\":[]}");
        assertEquals(Set.of(), f.ids());
        assertEquals(Set.of(), f.tags().get("t"));
        assertTrue(f.matchesNothingStored());
    }

    @Test
    void limitAboveMaxLimitIsClamped() throws ProtocolException {
        MessageParser p = new MessageParser(new MessageParser.Limits(10, 100, 2500, 1000));
        Filter f = ((ClientMessage.Req) p.parse("[\"REQ\",\"s\",{\"limit\":1000}]")).filters().get(0);
        assertEquals(100, f.limit());
    }

    @Test
    void limitAboveIntRangeIsClamped() throws ProtocolException {
        assertEquals(5000, onlyFilter("{\"limit\":9223372036854775807}").limit());
    }

    @Test
    void limitWithinMaxLimitIsKept() throws ProtocolException {
        assertEquals(50, onlyFilter("{\"limit\":50}").limit());
        assertEquals(0, onlyFilter("{\"limit\":0}").limit());
    }

    @Test
    void parseFilterReadsOneFilterObject() throws ProtocolException {
        Filter f = PARSER.parseFilter("{\"kinds\":[0,3],\"since\":0}");
        assertEquals(Set.of(0, 3), f.kinds());
        assertEquals(0L, f.since());
    }

    @Test
    void parseEventReadsOneEventObject() throws ProtocolException {
        assertEquals(EV.id(), PARSER.parseEvent(EV.json()).id());
    }

    // --- notices: no verb, event or subscription to refer to -------------------------------

    @ParameterizedTest
    @ValueSource(strings = { "hello", "[\"EVENT\"", "[\"CLOSE\",\"s\",]", "[\"CLOSE\" \"s\"]" })
    void notJsonIsRefused(String text) {
        assertTrue(notice(text).getMessage().startsWith("invalid: malformed JSON"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "{\"EVENT\":1}", "\"EVENT\"", "42", "null", "" })
    void notAnArrayIsRefused(String text) {
        assertEquals("invalid: a message must be a JSON array", notice(text).getMessage());
    }

    @Test
    void emptyArrayIsRefused() {
        assertEquals("invalid: a message must start with a verb string", notice("[]").getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = { "[1]", "[null,\"s\"]", "[[\"EVENT\"]]", "[{\"verb\":\"REQ\"}]", "[true]" })
    void verbThatIsNotAStringIsRefused(String text) {
        assertEquals("invalid: a message must start with a verb string", notice(text).getMessage());
    }

    @Test
    void unknownVerbIsRefused() {
        assertEquals("invalid: unknown message type \"PUBLISH\"", notice("[\"PUBLISH\",{}]").getMessage());
    }

    @Test
    void verbIsCaseSensitive() {
        assertEquals("invalid: unknown message type \"event\"", notice("[\"event\"," + EV.json() + "]").getMessage());
    }

    @Test
    void trailingArrayAfterTheMessageIsRefused() {
        assertEquals("invalid: trailing data after the message", notice("[\"CLOSE\",\"s\"][\"CLOSE\",\"t\"]").getMessage());
    }

    @Test
    void trailingValueAfterTheMessageIsRefused() {
        assertEquals("invalid: trailing data after the message", notice("[\"CLOSE\",\"s\"] 1").getMessage());
    }

    @Test
    void trailingGarbageAfterTheMessageIsRefused() {
        assertTrue(notice("[\"CLOSE\",\"s\"]x").getMessage().startsWith("invalid: "));
    }

    @Test
    void trailingDataAfterAnEventMessageIsRefused() {
        assertEquals("invalid: trailing data after the message", notice("[\"EVENT\"," + EV.json() + "] {}").getMessage());
    }

    @Test
    void deeplyNestedInputIsRefused() {
        String deep = eventWith("extra", "[".repeat(40) + "]".repeat(40));
        assertTrue(notice(deep).getMessage().startsWith("invalid: malformed JSON"), deep);
    }

    // --- EVENT: shape ----------------------------------------------------------------------

    @Test
    void eventWithoutArgumentIsRefused() {
        ProtocolException e = refused("[\"EVENT\"]");
        assertEquals("invalid: EVENT needs an event object", e.getMessage());
        assertEquals("EVENT", e.verb());
        assertNull(e.eventId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"x\"", "[]", "1", "null" })
    void eventArgumentThatIsNotAnObjectIsRefused(String arg) {
        ProtocolException e = refused("[\"EVENT\"," + arg + "]");
        assertEquals("invalid: EVENT needs an event object", e.getMessage());
        assertEquals("EVENT", e.verb());
    }

    @Test
    void eventWithTwoEventsIsRefusedWithTheFirstId() {
        eventRefusal("[\"EVENT\"," + EV.json() + "," + EV.json() + "]", "invalid: EVENT takes exactly one event");
    }

    @Test
    void eventWithAnExtraScalarIsRefused() {
        eventRefusal("[\"EVENT\"," + EV.json() + ",\"relay\"]", "invalid: EVENT takes exactly one event");
    }

    @Test
    void authErrorsNameTheAuthVerb() {
        Map<String, String> m = fields();
        m.put("kind", "\"22242\"");
        ProtocolException e = refused("[\"AUTH\"," + object(m) + "]");
        assertEquals("AUTH", e.verb());
        assertEquals(ID, e.eventId());
        assertEquals("invalid: kind must be an integer between 0 and 65535", e.getMessage());
    }

    // --- EVENT: fields ---------------------------------------------------------------------

    @Test
    void eventMissingIdIsRefusedWithoutAnId() {
        ProtocolException e = refused(eventWithout("id"));
        assertEquals("invalid: missing field id", e.getMessage());
        assertEquals("EVENT", e.verb());
        assertNull(e.eventId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "pubkey", "created_at", "kind", "tags", "content", "sig" })
    void eventMissingAFieldIsRefusedWithTheId(String field) {
        eventRefusal(eventWithout(field), "invalid: missing field " + field);
    }

    @Test
    void emptyEventObjectIsRefused() {
        ProtocolException e = refused("[\"EVENT\",{}]");
        assertEquals("invalid: missing field id", e.getMessage());
        assertNull(e.eventId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "upper", "63", "65", "number", "null", "nonhex", "128", "129" })
    void badIdIsRefusedWithoutAWellFormedIdButEchoedWhenAShortString(String kind) {
        String sent = switch (kind) {
            case "upper" -> ID.toUpperCase();
            case "63" -> ID.substring(1);
            case "65" -> ID + "0";
            case "nonhex" -> "z" + ID.substring(1);
            case "128" -> ID + ID.toUpperCase();
            case "129" -> ID + ID + "0";
            default -> null;
        };
        String v = sent != null ? "\"" + sent + "\"" : kind.equals("number") ? "1" : "null";
        ProtocolException e = refused(eventWith("id", v));
        assertEquals("invalid: id must be 64 lower-case hex characters", e.getMessage());
        assertEquals("EVENT", e.verb());
        assertNull(e.eventId());
        // a string of at most 128 characters comes back as sent, for an OK the client can match; else nothing
        assertEquals(kind.equals("129") ? null : sent, e.sentEventId());
    }

    @Test
    void aWellFormedIdIsNotEchoedAsSent() {
        ProtocolException e = refused(eventWith("pubkey", "1"));
        assertEquals(ID, e.eventId());
        assertNull(e.sentEventId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "upper", "63", "65", "number" })
    void badPubkeyIsRefusedWithTheId(String kind) {
        String pk = EV.pubkey().hex();
        String v = switch (kind) {
            case "upper" -> "\"" + pk.toUpperCase() + "\"";
            case "63" -> "\"" + pk.substring(1) + "\"";
            case "65" -> "\"" + pk + "0\"";
            default -> "7";
        };
        eventRefusal(eventWith("pubkey", v), "invalid: pubkey must be 64 lower-case hex characters");
    }

    @ParameterizedTest
    @ValueSource(strings = { "upper", "127", "129", "64" })
    void badSigIsRefusedWithTheId(String kind) {
        String sig = EV.sig().hex();
        String v = switch (kind) {
            case "upper" -> "\"" + sig.toUpperCase() + "\"";
            case "127" -> "\"" + sig.substring(1) + "\"";
            case "129" -> "\"" + sig + "0\"";
            default -> "\"" + sig.substring(0, 64) + "\"";
        };
        eventRefusal(eventWith("sig", v), "invalid: sig must be 128 lower-case hex characters");
    }

    @ParameterizedTest
    @ValueSource(strings = { "-1", "1.5", "1700000000.0", "1.7e9", "\"1700000000\"", "null", "true",
            "99999999999999999999", "[1700000000]" })
    void badCreatedAtIsRefusedWithTheId(String v) {
        eventRefusal(eventWith("created_at", v), "invalid: created_at must be a non-negative integer");
    }

    @ParameterizedTest
    @ValueSource(strings = { "65536", "-1", "1.0", "\"1\"", "null", "4294967297", "99999999999999999999", "{}" })
    void badKindIsRefusedWithTheId(String v) {
        eventRefusal(eventWith("kind", v), "invalid: kind must be an integer between 0 and 65535");
    }

    @ParameterizedTest
    @ValueSource(strings = { "\"e\"", "{}", "null", "[\"e\",\"x\"]", "[[\"e\",1]]", "[[\"e\",null]]",
            "[[\"e\",[\"x\"]]]", "[[\"e\",{\"v\":\"x\"}]]", "[[\"t\",\"ok\"],7]", "[[\"t\",\"ok\"],[true]]", "[[]]", "[[\"t\",\"ok\"],[]]" })
    void tagsThatAreNotArraysOfArraysOfStringsAreRefusedWithTheId(String v) {
        eventRefusal(eventWith("tags", v), "invalid: tags must be an array of non-empty arrays of strings");
    }

    @Test
    void tooManyTagsAreRefusedWithTheId() {
        MessageParser p = new MessageParser(new MessageParser.Limits(10, 5000, 1, 1000));
        ProtocolException e = refused(p, "[\"EVENT\"," + EV.json() + "]");
        assertEquals("invalid: too many tags (at most 1)", e.getMessage());
        assertEquals(ID, e.eventId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "1", "null", "true", "[]", "{}", "[\"hello\"]" })
    void contentThatIsNotAStringIsRefusedWithTheId(String v) {
        eventRefusal(eventWith("content", v), "invalid: content must be a string");
    }

    @Test
    void duplicateFieldIsRefusedWithTheId() {
        String json = EV.json();
        String dup = json.substring(0, json.length() - 1) + ",\"content\":\"other\"}";
        eventRefusal("[\"EVENT\"," + dup + "]", "invalid: duplicate field \"content\"");
    }

    @Test
    void duplicateIdenticalFieldIsRefusedToo() {
        String json = EV.json();
        String dup = json.substring(0, json.length() - 1) + ",\"kind\":" + EV.kind() + "}";
        eventRefusal("[\"EVENT\"," + dup + "]", "invalid: duplicate field \"kind\"");
    }

    @Test
    void idIsReportedEvenWhenTheBadFieldComesBeforeIt() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("kind", "-5");
        fields().forEach((k, v) -> m.putIfAbsent(k, v));
        assertEquals("kind", m.keySet().iterator().next());
        eventRefusal("[\"EVENT\"," + object(m) + "]", "invalid: kind must be an integer between 0 and 65535");
    }

    @Test
    void parseEventRefusesTrailingDataWithTheId() {
        ProtocolException e = assertThrows(ProtocolException.class, () -> PARSER.parseEvent(EV.json() + " []"));
        assertEquals("invalid: trailing data after the event", e.getMessage());
        assertEquals(ID, e.eventId());
    }

    // --- REQ / COUNT / CLOSE ---------------------------------------------------------------

    @Test
    void reqWithoutFilterIsRefused() {
        ProtocolException e = refused("[\"REQ\",\"sub1\"]");
        assertEquals("invalid: REQ needs at least one filter", e.getMessage());
        assertEquals("REQ", e.verb());
        assertEquals("sub1", e.subscriptionId());
    }

    @Test
    void reqWithoutSubscriptionIdIsRefused() {
        ProtocolException e = refused("[\"REQ\"]");
        assertEquals("invalid: REQ needs a subscription id string", e.getMessage());
        assertEquals("REQ", e.verb());
        assertNull(e.subscriptionId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "1", "null", "{}", "[\"s\"]" })
    void subscriptionIdThatIsNotAStringIsRefused(String v) {
        ProtocolException e = refused("[\"REQ\"," + v + ",{}]");
        assertEquals("invalid: REQ needs a subscription id string", e.getMessage());
        assertNull(e.subscriptionId());
    }

    @Test
    void emptySubscriptionIdIsRefused() {
        ProtocolException e = refused("[\"REQ\",\"\",{}]");
        assertEquals("invalid: subscription id must be 1 to 64 characters", e.getMessage());
        assertEquals("REQ", e.verb());
        assertEquals("", e.subscriptionId(), "the id as sent, for CLOSED");
    }

    @Test
    void subscriptionIdOf65CharactersIsRefused() {
        ProtocolException e = refused("[\"REQ\",\"" + "s".repeat(65) + "\",{}]");
        assertEquals("invalid: subscription id must be 1 to 64 characters", e.getMessage());
        assertEquals("s".repeat(65), e.subscriptionId(), "the id as sent, for CLOSED");
    }

    @Test
    void subscriptionIdLengthCountsCharactersNotUtf16Units() throws ProtocolException {
        String emoji = "\uD83D\uDE00"; // one character, two UTF-16 units
        String sixtyFour = "s".repeat(63) + emoji;
        assertEquals(sixtyFour, ((ClientMessage.Req) PARSER.parse("[\"REQ\",\"" + sixtyFour + "\",{}]")).subscriptionId());
        ProtocolException e = refused("[\"REQ\",\"" + emoji.repeat(65) + "\",{}]");
        assertEquals("invalid: subscription id must be 1 to 64 characters", e.getMessage());
    }

    @Test
    void aRefusalUnreadIsAddressedByTheMessagesIdOrSubscription() {
        String id = "ab".repeat(32);
        String huge = "x".repeat(10_000);
        ProtocolException e = PARSER.refusalUnread("[\"EVENT\",{\"content\":\"" + huge + "\",\"tags\":[[\"t\",\"" + huge
                + "\"]],\"id\":\"" + id + "\",\"kind\":1}]", "invalid: too large");
        assertEquals("EVENT", e.verb());
        assertEquals(id, e.eventId());
        assertEquals("invalid: too large", e.getMessage());
        e = PARSER.refusalUnread("[\"EVENT\",{\"id\":\"not-hex\",\"content\":\"" + huge + "\"}]", "invalid: too large");
        assertNull(e.eventId());
        assertEquals("not-hex", e.sentEventId());
        e = PARSER.refusalUnread("[\"COUNT\",\"c1\",{\"#t\":[\"" + huge + "\"]}]", "invalid: too large");
        assertEquals("COUNT", e.verb());
        assertEquals("c1", e.subscriptionId());
        e = PARSER.refusalUnread("[\"REQ\",\"" + "s".repeat(65) + "\",{}]", "invalid: too large");
        assertNull(e.subscriptionId(), "a subscription id the relay would refuse is not one to answer");
        e = PARSER.refusalUnread("[\"EVENT\",{\"content\":\"" + huge, "invalid: too large");
        assertEquals("EVENT", e.verb());
        assertNull(e.eventId(), "cut off before its id: a NOTICE");
        e = PARSER.refusalUnread(huge, "invalid: too large");
        assertNull(e.verb());
    }

    @Test
    void tooManyFiltersAreRefused() {
        MessageParser p = new MessageParser(new MessageParser.Limits(2, 5000, 2500, 1000));
        ProtocolException e = refused(p, "[\"REQ\",\"sub1\",{},{},{}]");
        assertEquals("invalid: too many filters (at most 2)", e.getMessage());
        assertEquals("sub1", e.subscriptionId());
    }

    @Test
    void filtersUpToTheLimitAreAccepted() throws ProtocolException {
        MessageParser p = new MessageParser(new MessageParser.Limits(2, 5000, 2500, 1000));
        assertEquals(2, ((ClientMessage.Req) p.parse("[\"REQ\",\"sub1\",{},{}]")).filters().size());
    }

    @ParameterizedTest
    @ValueSource(strings = { "1", "\"x\"", "[]", "null" })
    void filterThatIsNotAnObjectIsRefused(String v) {
        reqRefusal(v, "invalid: filters must be JSON objects");
    }

    @Test
    void filterWithUnknownFieldIsRefused() {
        reqRefusal("{\"kinds\":[1],\"foo\":1}", "invalid: unknown filter field \"foo\"");
    }

    @Test
    void searchFieldIsUnsupported() {
        ProtocolException e = reqRefusal("{\"search\":\"nostr\"}", "unsupported: NIP-50 search is not supported");
        assertTrue(e.getMessage().startsWith("unsupported:"));
    }

    @ParameterizedTest
    @ValueSource(strings = { "upper", "short", "long", "prefix" })
    void idsWithBadHexAreRefused(String kind) {
        String v = switch (kind) {
            case "upper" -> HEX64.toUpperCase();
            case "short" -> HEX64.substring(1);
            case "long" -> HEX64 + "0";
            default -> HEX64.substring(0, 8);
        };
        reqRefusal("{\"ids\":[\"" + HEX64B + "\",\"" + v + "\"]}", "invalid: ids must hold 64 lower-case hex characters");
    }

    @Test
    void idsThatAreNotStringsAreRefused() {
        reqRefusal("{\"ids\":[1]}", "invalid: ids must be an array of strings");
        reqRefusal("{\"ids\":\"" + HEX64 + "\"}", "invalid: ids must be an array of strings");
    }

    @Test
    void authorsWithBadHexAreRefused() {
        reqRefusal("{\"authors\":[\"" + HEX64.toUpperCase() + "\"]}",
                "invalid: authors must hold 64 lower-case hex characters");
    }

    @ParameterizedTest
    @ValueSource(strings = { "[\"1\"]", "[1.5]", "[1.0]", "[-1]", "[65536]", "[null]", "[[1]]", "1" })
    void kindsThatAreNotIntegersInRangeAreRefused(String v) {
        ProtocolException e = refused("[\"REQ\",\"sub1\",{\"kinds\":" + v + "}]");
        assertTrue(e.getMessage().startsWith("invalid: kinds must be"), e.getMessage());
        assertEquals("sub1", e.subscriptionId());
    }

    @ParameterizedTest
    @ValueSource(strings = { "-1", "1.5", "\"10\"", "null" })
    void sinceThatIsNotANonNegativeIntegerIsRefused(String v) {
        reqRefusal("{\"since\":" + v + "}", "invalid: since must be a non-negative integer");
    }

    @ParameterizedTest
    @ValueSource(strings = { "-1", "2.5" })
    void untilThatIsNotANonNegativeIntegerIsRefused(String v) {
        reqRefusal("{\"until\":" + v + "}", "invalid: until must be a non-negative integer");
    }

    @Test
    void negativeLimitIsRefused() {
        reqRefusal("{\"limit\":-1}", "invalid: limit must be a non-negative integer");
    }

    @Test
    void multiLetterTagFilterIsRefused() {
        reqRefusal("{\"#ab\":[\"x\"]}", "invalid: unknown filter field \"#ab\"");
    }

    @ParameterizedTest
    @ValueSource(strings = { "#", "#1", "#-", "#é", "e" })
    void tagFilterNameThatIsNotHashAndOneLetterIsRefused(String name) {
        reqRefusal("{\"" + name + "\":[\"x\"]}", "invalid: unknown filter field " + NostrJson.quote(name));
    }

    @Test
    void tagFilterValuesMustBeStrings() {
        reqRefusal("{\"#e\":[1]}", "invalid: #e must be an array of strings");
        reqRefusal("{\"#e\":\"x\"}", "invalid: #e must be an array of strings");
    }

    @Test
    void duplicateFilterFieldIsRefused() {
        reqRefusal("{\"kinds\":[1],\"kinds\":[2]}", "invalid: duplicate filter field \"kinds\"");
    }

    @Test
    void tooManyFilterValuesAreRefused() {
        MessageParser p = new MessageParser(new MessageParser.Limits(10, 5000, 2500, 2));
        ProtocolException e = refused(p, "[\"REQ\",\"sub1\",{\"#t\":[\"a\",\"b\",\"c\"]}]");
        assertEquals("invalid: too many values in #t (at most 2)", e.getMessage());
        assertEquals("sub1", e.subscriptionId());
    }

    @Test
    void countErrorsNameTheCountVerbAndSubscription() {
        ProtocolException e = refused("[\"COUNT\",\"c1\",{\"kinds\":[\"x\"]}]");
        assertEquals("COUNT", e.verb());
        assertEquals("c1", e.subscriptionId());
    }

    @Test
    void countWithoutFilterIsRefused() {
        ProtocolException e = refused("[\"COUNT\",\"c1\"]");
        assertEquals("invalid: COUNT needs at least one filter", e.getMessage());
        assertEquals("c1", e.subscriptionId());
    }

    @Test
    void closeWithoutSubscriptionIdIsRefused() {
        ProtocolException e = refused("[\"CLOSE\"]");
        assertEquals("invalid: CLOSE needs a subscription id string", e.getMessage());
        assertEquals("CLOSE", e.verb());
    }

    @Test
    void closeWithExtraArgumentsIsRefused() {
        ProtocolException e = refused("[\"CLOSE\",\"sub1\",{}]");
        assertEquals("invalid: CLOSE takes only a subscription id", e.getMessage());
        assertEquals("CLOSE", e.verb());
    }

    @Test
    void parseFilterRefusesUnknownFields() {
        ProtocolException e = assertThrows(ProtocolException.class, () -> PARSER.parseFilter("{\"bogus\":1}"));
        assertEquals("invalid: unknown filter field \"bogus\"", e.getMessage());
    }
}
