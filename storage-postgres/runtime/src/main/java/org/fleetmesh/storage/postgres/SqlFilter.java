package org.fleetmesh.storage.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.fleetmesh.nostr.EventId;
import org.fleetmesh.nostr.Filter;
import org.fleetmesh.nostr.PubKey;
import org.fleetmesh.spi.storage.Reader;

/**
 * Turns a NIP-01 filter into one SQL statement with bind parameters.
 *
 * <p>The plain form is a {@code where} over {@code event} (ids, authors, kinds, time range,
 * expiration) with {@code exists} sub-queries on {@code tag}, ordered {@code created_at desc, id}:
 * every shape has an index, and for author/kind lists the planner picks between the
 * (pubkey|kind, created_at) indexes and a backward scan of the created_at index.
 *
 * <p>With a limit and a tag filter, the tag letter with the fewest values drives a
 * {@code LATERAL} join instead: one ordered range scan of {@code tag_value_idx} per value, each
 * stopped after {@code limit} rows, merged and cut again, so a popular {@code #t} costs
 * {@code limit} index entries rather than every match. (Measured: a 100k-event store, popular
 * #t limit 100: 0.9 ms lateral vs 3.8 ms plain; three #t values + kind: 1.9 vs 17.7 ms. For author
 * and kind lists the plain form won, 0.6 ms vs 38 ms for 300 authors, so they stay plain.) With one value (the
 * common {@code #e}/{@code #p} lookup) there is nothing to merge: one ordered scan joined to {@code event}, cut at the
 * limit (200,000 events, one {@code #p} value, 100 rows: 0.8 ms against 2.3 ms through the merge, warm).
 */
final class SqlFilter {

    enum Mode {
        /** {@code id, json}, newest first (ties: lowest id), limited. */
        QUERY,
        /** {@code count(*)}, limit ignored. */
        COUNT,
        /** {@code created_at, id} ascending; with a limit, the newest {@code limit} matches. */
        ENUMERATE,
        /** {@code id} of every match, unordered, limit ignored: a branch of a counted union. */
        IDS
    }

    /** An array parameter: bound with {@link Connection#createArrayOf}. */
    record Arr(String type, Object[] values) {
    }

    /**
     * A statement and its parameters. {@code generic}: the statement is to be run under {@code plan_cache_mode =
     * force_generic_plan} (see {@link #oneBestPlan}): its best plan does not depend on the values of its parameters, so
     * PostgreSQL need not plan it again for every execution.
     */
    record Sql(String text, List<Object> params, boolean generic) {
        Sql(String text, List<Object> params) {
            this(text, params, false);
        }

        PreparedStatement prepare(Connection c) throws SQLException {
            PreparedStatement ps = c.prepareStatement(text);
            try {
                bind(c, ps, params);
            } catch (SQLException | RuntimeException e) {
                ps.close();
                throw e;
            }
            return ps;
        }
    }

    static void bind(Connection c, PreparedStatement ps, List<Object> params) throws SQLException {
        for (int i = 0; i < params.size(); i++) {
            Object p = params.get(i);
            int idx = i + 1;
            if (p instanceof Arr a) {
                ps.setArray(idx, c.createArrayOf(a.type(), a.values()));
            } else if (p instanceof Long l) {
                ps.setLong(idx, l);
            } else if (p instanceof Integer n) {
                ps.setInt(idx, n);
            } else if (p instanceof String s) {
                ps.setString(idx, s);
            } else if (p instanceof byte[] b) {
                ps.setBytes(idx, b);
            } else {
                throw new IllegalArgumentException("unsupported parameter " + p);
            }
        }
    }

    private SqlFilter() {
    }

    /**
     * What a QUERY returns on alias {@code a}, in this order: {@code id, pubkey, created_at, kind, body, sig, json}
     * ({@code json} is null except on a legacy row). The reader builds the JSON from them ({@link StoredJson}), which
     * costs PostgreSQL nothing (docs/spec/storage.md, "Compact rows", gives the same rule as SQL).
     */
    static String columns(String a) {
        return a + ".id, " + a + ".pubkey, " + a + ".created_at, " + a + ".kind, " + a + ".body, " + a + ".sig, " + a
                + ".json";
    }

    /** The statement as the operator (sees everything), or null when nothing stored can match. */
    static Sql build(Filter f, long now, Mode mode) {
        return build(f, now, mode, Reader.operator());
    }

    /** The statement, or null when nothing stored can match (e.g. a multi-letter tag filter). */
    static Sql build(Filter f, long now, Mode mode, Reader reader) {
        if ((mode == Mode.COUNT || mode == Mode.IDS ? f.withLimit(null) : f).matchesNothingStored()) {
            return null;
        }
        for (String name : f.tags().keySet()) {
            if (name.length() != 1) {
                return null; // only single-letter tags are indexed (NIP-01)
            }
        }
        Integer limit = mode == Mode.COUNT || mode == Mode.IDS ? null : f.limit();
        if (limit == null) {
            return plain(f, now, mode, null, reader);
        }
        String driverTag = pickDriverTag(f.tags());
        if (f.ids() != null || driverTag == null) {
            return plain(f, now, mode, limit, reader);
        }
        return lateral(f, now, mode, limit, driverTag, reader);
    }

    /**
     * Counts the union of {@code filters} (each event once, limits ignored) in one statement, or
     * null when no filter can match.
     */
    static Sql countUnion(List<Filter> filters, long now, Reader reader) {
        List<Sql> branches = new ArrayList<>();
        for (Filter f : filters) {
            Sql b = build(f, now, Mode.IDS, reader);
            if (b != null) {
                branches.add(b);
            }
        }
        if (branches.isEmpty()) {
            return null;
        }
        return union("select count(*) from (", branches, " union ", ") u");
    }

    /**
     * Enumerates the union of {@code filters} (each its own limit) ascending by (created_at, id),
     * each event once, or null when no filter can match.
     */
    static Sql enumerateUnion(List<Filter> filters, long now, Reader reader) {
        List<Sql> branches = new ArrayList<>();
        for (Filter f : filters) {
            Sql b = build(f, now, Mode.ENUMERATE, reader);
            if (b != null) {
                branches.add(b);
            }
        }
        if (branches.isEmpty()) {
            return null;
        }
        if (branches.size() == 1) {
            return branches.get(0);
        }
        return union("select u.created_at, u.id from ((", branches, ") union (", ")) u order by u.created_at, u.id");
    }

    private static Sql union(String head, List<Sql> branches, String sep, String tail) {
        StringBuilder sql = new StringBuilder(head);
        List<Object> params = new ArrayList<>();
        for (int i = 0; i < branches.size(); i++) {
            if (i > 0) {
                sql.append(sep);
            }
            sql.append(branches.get(i).text());
            params.addAll(branches.get(i).params());
        }
        return new Sql(sql.append(tail).toString(), params);
    }

    private static String pickDriverTag(Map<String, Set<String>> tags) {
        return tags.entrySet().stream()
                .min(Comparator.<Map.Entry<String, Set<String>>>comparingInt(e -> e.getValue().size())
                        .thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey).orElse(null);
    }

    // ------------------------------------------------------------------------------ plain

    /**
     * Whether a limited read of {@code f} is planned once per connection instead of once per execution: the newest
     * events, or the newest of one kind, and nothing else (no ids, authors, tags or time range). Its only parameter is
     * then the time for the expiration rule, whose value does not change the plan: the kind and the limit are written
     * into the statement, so the generic plan is the plan for them (a common kind may be read by walking the newest
     * events, a rare one must be read by {@code event_kind_idx}). PostgreSQL's plan cache would plan such a read five
     * times per connection before it tried a generic plan, and with the limit as a parameter never ({@code LIMIT $n}
     * is costed as 10 % of the rows, so a custom plan always looks cheaper): 0.15-0.3 ms of a 1 ms REQ
     * (docs/BENCHMARKS.md, "Eighth session: planned once, the newest of a kind"). Such a read runs under
     * {@code plan_cache_mode = force_generic_plan}.
     * A time range is a parameter whose value does change the best plan (a generic plan assumes a narrow window, and
     * would read a month-wide one whole to sort it), and so do author lists, kind lists, ids and tag values: those
     * reads are left as they are, to the plan cache's own choice. A client can make a distinct statement text per kind
     * and limit this way, as it could before by combining conditions; what that costs stays bounded by pgjdbc's cache
     * of 256 statements per connection (a statement is prepared on the server from its fifth use; one of these holds
     * about 48 KiB there).
     */
    static boolean oneBestPlan(Filter f, Mode mode, Integer limit) {
        return mode == Mode.QUERY && limit != null && f.ids() == null && f.authors() == null && f.tags().isEmpty()
                && (f.kinds() == null || f.kinds().size() == 1) && f.since() == null && f.until() == null;
    }

    private static Sql plain(Filter f, long now, Mode mode, Integer limit, Reader reader) {
        boolean generic = oneBestPlan(f, mode, limit);
        List<Object> params = new ArrayList<>();
        StringBuilder where = new StringBuilder();
        boolean kindWritten = generic && f.kinds() != null;
        if (kindWritten) {
            // written out, as the limit: the generic plan is made for this kind (a common kind and a rare one are best
            // read by different indexes), once per connection and statement text
            and(where, "e.kind = " + f.kinds().iterator().next().intValue());
        }
        eventConditions(f, now, where, params, true, !kindWritten, true, null);
        visibility(f, reader, where, params);
        String w = where.length() == 0 ? "" : " where " + where;
        String sql;
        switch (mode) {
            case COUNT -> sql = "select count(*) from event e" + w;
            case IDS -> sql = "select e.id from event e" + w;
            case QUERY -> {
                sql = "select " + columns("e") + " from event e" + w + " order by e.created_at desc, e.id";
                if (generic) {
                    sql += " limit " + limit.intValue(); // written out: the generic plan is costed for this limit
                } else if (limit != null) {
                    sql += " limit ?";
                    params.add(limit);
                }
            }
            default -> {
                if (limit == null) {
                    sql = "select e.created_at, e.id from event e" + w + " order by e.created_at, e.id";
                } else {
                    sql = "select s.created_at, s.id from (select e.created_at, e.id from event e" + w
                            + " order by e.created_at desc, e.id limit ?) s order by s.created_at, s.id";
                    params.add(limit);
                }
            }
        }
        return new Sql(sql, params, generic);
    }

    /**
     * Appends the conditions on alias {@code e}. {@code skipTag} is the tag letter a driver already
     * handles; {@code withRange}/{@code withKinds}/{@code withAuthors} leave out what the driver covers.
     */
    private static void eventConditions(Filter f, long now, StringBuilder w, List<Object> params, boolean withAuthors,
            boolean withKinds, boolean withRange, String skipTag) {
        // one value is written "= ?": PostgreSQL (before 17) cannot read an index in order for
        // "= any(array)", so a one-author, limit-100 query would fetch and sort all of the author's events
        if (f.ids() != null) {
            if (f.ids().size() == 1) {
                and(w, "e.id = ?");
                params.add(f.ids().iterator().next().toBytes());
            } else {
                and(w, "e.id = any(?)");
                params.add(ids(f.ids()));
            }
        }
        if (withAuthors && f.authors() != null) {
            if (f.authors().size() == 1) {
                and(w, "e.pubkey = ?");
                params.add(f.authors().iterator().next().toBytes());
            } else {
                and(w, "e.pubkey = any(?)");
                params.add(authors(f.authors()));
            }
        }
        if (withKinds && f.kinds() != null) {
            if (f.kinds().size() == 1) {
                and(w, "e.kind = ?");
                params.add(f.kinds().iterator().next());
            } else {
                and(w, "e.kind = any(?)");
                params.add(kinds(f.kinds()));
            }
        }
        if (withRange && f.since() != null) {
            and(w, "e.created_at >= ?");
            params.add(f.since());
        }
        if (withRange && f.until() != null) {
            and(w, "e.created_at <= ?");
            params.add(f.until());
        }
        and(w, "(e.expires_at is null or e.expires_at > ?)");
        params.add(now);
        for (Map.Entry<String, Set<String>> t : f.tags().entrySet()) {
            if (t.getKey().equals(skipTag)) {
                continue;
            }
            StringBuilder x = new StringBuilder(
                    "exists (select 1 from tag x where x.event_seq = e.seq and x.name = ? and x.value = any(?)");
            params.add(t.getKey());
            params.add(values(t.getValue()));
            if (f.since() != null) {
                x.append(" and x.created_at >= ?");
                params.add(f.since());
            }
            if (f.until() != null) {
                x.append(" and x.created_at <= ?");
                params.add(f.until());
            }
            x.append(')');
            and(w, x.toString());
        }
    }

    /**
     * The reader's visibility rule on alias {@code e}: an event of a gated kind needs the reader as
     * author or in a {@code p} tag (the tag row's value is {@link TextKeys#valueBytes} of the key's hex).
     */
    private static void visibility(Filter f, Reader reader, StringBuilder w, List<Object> params) {
        if (reader.seesAll()) {
            return;
        }
        Set<Integer> gated = new java.util.TreeSet<>(reader.privateKinds());
        if (f.kinds() != null) {
            gated.retainAll(f.kinds());
            if (gated.isEmpty()) {
                return; // the filter asks for no gated kind
            }
        }
        if (reader.pubkeys().isEmpty()) {
            and(w, "e.kind <> all(?)");
            params.add(kinds(gated));
            return;
        }
        and(w, "(e.kind <> all(?) or e.pubkey = any(?) or exists (select 1 from tag v"
                + " where v.event_seq = e.seq and v.name = 'p' and v.value = any(?)))");
        params.add(kinds(gated));
        params.add(authors(reader.pubkeys()));
        byte[][] hex = new byte[reader.pubkeys().size()][];
        int i = 0;
        for (PubKey k : reader.pubkeys()) {
            hex[i++] = TextKeys.valueBytes(k.hex());
        }
        params.add(new Arr("bytea", hex));
    }

    // ------------------------------------------------------------------------------ lateral

    private static Sql lateral(Filter f, long now, Mode mode, int limit, String driverTag, Reader reader) {
        List<Object> params = new ArrayList<>();
        Set<String> driverValues = f.tags().get(driverTag);
        boolean single = driverValues.size() == 1;
        if (!single) {
            params.add(values(driverValues));
        }
        StringBuilder inner = new StringBuilder();
        inner.append(single && mode == Mode.QUERY ? "select " + columns("e") : "select e.id, t.created_at")
                .append(" from tag t join event e on e.seq = t.event_seq where t.name = ? and t.value = ")
                .append(single ? "?" : "d.v");
        params.add(driverTag);
        if (single) {
            params.add(values(driverValues).values()[0]);
        }
        if (f.since() != null) {
            inner.append(" and t.created_at >= ?");
            params.add(f.since());
        }
        if (f.until() != null) {
            inner.append(" and t.created_at <= ?");
            params.add(f.until());
        }
        if (f.kinds() != null) {
            inner.append(" and t.kind = any(?)");
            params.add(kinds(f.kinds()));
        }
        StringBuilder w = new StringBuilder();
        eventConditions(f, now, w, params, true, false, false, driverTag);
        visibility(f, reader, w, params);
        inner.append(" and ").append(w);
        inner.append(" order by t.created_at desc, e.id limit ?");
        params.add(limit);
        if (single) {
            // one value: one ordered range scan of tag_value_idx, cut at the limit, no merge (an event has one row
            // per distinct (name, value), so nothing repeats)
            String sql = mode == Mode.QUERY ? inner.toString()
                    : "select s.created_at, s.id from (" + inner + ") s order by s.created_at, s.id";
            return new Sql(sql, params);
        }
        String candidates = "select distinct c.id, c.created_at from unnest(?::bytea[]) as d(v) cross join lateral ("
                + inner + ") c";
        String sql;
        if (mode == Mode.QUERY) {
            // cut to the limit before fetching the JSON
            sql = "select " + columns("e") + " from (select c.id, c.created_at from (" + candidates + ") c"
                    + " order by c.created_at desc, c.id limit ?) c join event e on e.id = c.id"
                    + " order by c.created_at desc, c.id";
            params.add(limit);
        } else {
            sql = "select s.created_at, s.id from (select c.created_at, c.id from (" + candidates + ") c"
                    + " order by c.created_at desc, c.id limit ?) s order by s.created_at, s.id";
            params.add(limit);
        }
        return new Sql(sql, params);
    }

    // ------------------------------------------------------------------------------ helpers

    private static void and(StringBuilder w, String cond) {
        if (w.length() > 0) {
            w.append(" and ");
        }
        w.append(cond);
    }

    static Arr ids(Set<EventId> ids) {
        byte[][] out = new byte[ids.size()][];
        int i = 0;
        for (EventId id : ids) {
            out[i++] = id.unsafeBytes();
        }
        return new Arr("bytea", out);
    }

    static Arr authors(Set<PubKey> authors) {
        byte[][] out = new byte[authors.size()][];
        int i = 0;
        for (PubKey p : authors) {
            out[i++] = p.unsafeBytes();
        }
        return new Arr("bytea", out);
    }

    static Arr kinds(Set<Integer> kinds) {
        return new Arr("int4", kinds.toArray(new Integer[0]));
    }

    static Arr values(Set<String> values) {
        byte[][] out = new byte[values.size()][];
        int i = 0;
        for (String v : values) {
            out[i++] = TextKeys.valueBytes(TextKeys.key(v));
        }
        return new Arr("bytea", out);
    }
}
