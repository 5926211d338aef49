package org.fleetmesh.storage.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.fleetmesh.nostr.Filter;
import org.fleetmesh.spi.storage.Reader;

/**
 * A read that the tag index alone answers, its events' JSON then taken from the {@link EventCache} (docs/spec/storage.md
 * "Reads from the tag index"): a filter with one single-letter tag of one value and a limit, optionally
 * {@code kinds}, {@code since}, {@code until}, and nothing else ({@code ids}, {@code authors} or a second tag are not in
 * the tag row). {@code tag_value_idx} holds {@code (name, value, created_at desc, event_seq) include (kind)}, so the
 * statement is an index-only scan of at most {@code limit + 1} entries, whatever the table holds.
 *
 * <p>Pure: the statements to send, and {@link #answer} decides from the rows and the entries what to send, or that the
 * read must be the full statement after all (a tie on {@code created_at} across the limit, which NIP-01 breaks by the
 * lowest id and the index by seq; an expired event the full statement would skip and replace).
 */
final class TagIndexRead {
    /** The tag scan: {@code event_seq, created_at}, newest first, {@link #limit} + 1 rows at most. */
    final SqlFilter.Sql tagScan;
    final int limit;

    private TagIndexRead(SqlFilter.Sql tagScan, int limit) {
        this.tagScan = tagScan;
        this.limit = limit;
    }

    /**
     * The read of {@code f} for {@code reader} from the tag index, or null when the filter asks for more than the tag
     * row holds (or is better left to {@link SqlFilter}).
     */
    static TagIndexRead plan(Filter f, Reader reader) {
        Integer limit = f.limit();
        if (limit == null || limit < 1 || limit >= EventReader.ONE_SHOT_MAX_ROWS || f.ids() != null
                || f.authors() != null || f.tags().size() != 1 || f.matchesNothingStored()) {
            return null;
        }
        Map.Entry<String, Set<String>> tag = f.tags().entrySet().iterator().next();
        if (tag.getKey().length() != 1 || tag.getValue().size() != 1) {
            return null;
        }
        List<Object> params = new ArrayList<>();
        StringBuilder sql = new StringBuilder(
                "select t.event_seq, t.created_at from tag t where t.name = ? and t.value = ?");
        params.add(tag.getKey());
        params.add(TextKeys.valueBytes(TextKeys.key(tag.getValue().iterator().next())));
        if (f.since() != null) {
            sql.append(" and t.created_at >= ?");
            params.add(f.since());
        }
        if (f.until() != null) {
            sql.append(" and t.created_at <= ?");
            params.add(f.until());
        }
        if (f.kinds() != null) {
            sql.append(" and t.kind = any(?)");
            params.add(SqlFilter.kinds(f.kinds()));
        }
        if (!reader.seesAll()) {
            Set<Integer> gated = new TreeSet<>(reader.privateKinds());
            if (f.kinds() != null) {
                gated.retainAll(f.kinds());
            }
            if (!gated.isEmpty()) {
                if (!reader.pubkeys().isEmpty()) {
                    return null; // "addressed to or written by the reader" needs the event's pubkey and p tags
                }
                sql.append(" and t.kind <> all(?)");
                params.add(SqlFilter.kinds(gated));
            }
        }
        sql.append(" order by t.created_at desc, t.event_seq limit ?");
        params.add(limit + 1);
        return new TagIndexRead(new SqlFilter.Sql(sql.toString(), params), limit);
    }

    /**
     * The statement that fetches the events the cache lacks: {@code seq, expires_at} then {@link SqlFilter#columns}.
     */
    static SqlFilter.Sql fetch(long[] seqs) {
        Long[] boxed = new Long[seqs.length];
        for (int i = 0; i < seqs.length; i++) {
            boxed[i] = seqs[i];
        }
        return new SqlFilter.Sql("select e.seq, e.expires_at, " + SqlFilter.columns("e")
                + " from event e where e.seq = any(?)", List.of(new SqlFilter.Arr("int8", boxed)));
    }

    /** How many of {@code n} scanned rows the read sends, or -1 when a tie straddles the limit. */
    int rowsToSend(long[] createdAt, int n) {
        if (n > limit) {
            return createdAt[limit] == createdAt[limit - 1] ? -1 : limit;
        }
        return n;
    }

    /**
     * The events to send, in NIP-01 order (newest first, a tie broken by the lowest id), from the first {@code m} rows
     * of the scan and their cache entries (none null); or null when the full statement must answer: an entry whose
     * event has expired at {@code now} (the statement would skip it and send the next one), or one whose JSON does not
     * begin with its id.
     */
    static EventCache.Entry[] answer(long[] createdAt, EventCache.Entry[] entries, int m, long now) {
        EventCache.Entry[] out = new EventCache.Entry[m];
        for (int i = 0; i < m; i++) {
            EventCache.Entry e = entries[i];
            if (e.expiresAt() <= now || !StoredJson.startsWithId(e.buf(), e.offset(), e.length())) {
                return null;
            }
            out[i] = e;
        }
        // the index orders a tie by seq; NIP-01 by the lowest id: sort each run of equal created_at by id
        int start = 0;
        while (start < m) {
            int end = start + 1;
            while (end < m && createdAt[end] == createdAt[start]) {
                end++;
            }
            if (end - start > 1) {
                java.util.Arrays.sort(out, start, end, StoredJson.BY_ID);
            }
            start = end;
        }
        return out;
    }
}
