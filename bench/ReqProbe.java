import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.Arrays;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Sequential REQ -> EOSE round trips over one WebSocket with the JDK's own client (java.net.http, which offers no
 * permessage-deflate), the filter drawn per REQ from a template: %V a random line of VALUES, %10V ten distinct random
 * lines of VALUES, each in quotes, comma-separated (any count from 1 to 99), %T a random time in the
 * span of `meshnode bench corpus` (1,700,000,000 + up to 996,400 s), %U that time + 3600. Prints p50/p90/p99/p99.9/max
 * in ms of the N timed REQs after WARM untimed ones; the end time and duration of each REQ at or above p99 go to
 * stderr (to set beside a GC log). A single-file program: java bench/ReqProbe.java URL TEMPLATE WARM N [VALUES|-] [SEED]
 */
public class ReqProbe {
    public static void main(String[] a) throws Exception {
        if (a.length < 4) {
            System.err.println("usage: java bench/ReqProbe.java URL TEMPLATE WARM N [VALUES|-] [SEED]");
            System.exit(2);
        }
        String url = a[0]; String template = a[1]; int warm = Integer.parseInt(a[2]); int n = Integer.parseInt(a[3]);
        java.util.List<String> values = a.length > 4 && !a[4].equals("-") ? java.nio.file.Files.readAllLines(java.nio.file.Path.of(a[4])) : java.util.List.of("");
        java.util.Random rnd = new java.util.Random(a.length > 5 ? Long.parseLong(a[5]) : 7);
        LinkedBlockingQueue<String> q = new LinkedBlockingQueue<>();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(URI.create(url), new WebSocket.Listener() {
            StringBuilder sb = new StringBuilder();
            public CompletionStage<?> onText(WebSocket w, CharSequence d, boolean last) {
                sb.append(d); if (last) { String m = sb.toString(); sb.setLength(0); if (m.startsWith("[\"EOSE\"") || m.startsWith("[\"CLOSED\"")) q.add(m); }
                w.request(1); return null; }
        }).join();
        long[] t = new long[n]; long[] at = new long[n];
        for (int i = 0; i < warm + n; i++) {
            long t0 = System.nanoTime();
            long tv = 1700000000L + rnd.nextInt(996400);
            String filter = several(template, values, rnd).replace("%V", values.get(rnd.nextInt(values.size()))).replace("%T", Long.toString(tv)).replace("%U", Long.toString(tv + 3600));
            ws.sendText("[\"REQ\",\"s" + i + "\"," + filter + "]", true).join();
            q.take();
            long dt = System.nanoTime() - t0;
            ws.sendText("[\"CLOSE\",\"s" + i + "\"]", true).join();
            if (i >= warm) { t[i - warm] = dt; at[i - warm] = System.currentTimeMillis(); }
        }
        long[] s = t.clone(); Arrays.sort(s);
        System.out.printf("p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms%n", s[n/2]/1e6, s[n*9/10]/1e6, s[n*99/100]/1e6, s[n*999/1000]/1e6, s[n-1]/1e6);
        long thr = s[n*99/100];
        StringBuilder slow = new StringBuilder();
        for (int i = 0; i < n; i++) if (t[i] >= thr) slow.append(at[i]).append(':').append(String.format("%.2f", t[i]/1e6)).append(' ');
        System.err.println(slow);
        System.exit(0);
    }

    /** %NV: N distinct random lines of VALUES, quoted and comma-separated. */
    static String several(String template, java.util.List<String> values, java.util.Random rnd) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("%([0-9]{1,2})V").matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            int k = Integer.parseInt(m.group(1));
            java.util.LinkedHashSet<String> pick = new java.util.LinkedHashSet<>();
            while (pick.size() < Math.min(k, values.size())) pick.add(values.get(rnd.nextInt(values.size())));
            StringBuilder v = new StringBuilder();
            for (String x : pick) v.append(v.length() == 0 ? "" : ",").append('"').append(x).append('"');
            m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(v.toString()));
        }
        return m.appendTail(out).toString();
    }
}
