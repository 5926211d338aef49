package org.fleetmesh.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoublePredicate;

/** One scrape of a node's {@code /q/metrics} (Prometheus text format), read by metric name and labels. */
public final class Metrics {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String text;

    private Metrics(String text) {
        this.text = text;
    }

    public static Metrics scrape(MeshnodeProcess node) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(node.httpUri().resolve("/q/metrics"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new AssertionError("/q/metrics answered " + r.statusCode() + ": " + r.body());
            }
            return new Metrics(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The samples named exactly {@code name} that carry every label in {@code labels} ({@code key="value"} each). */
    public List<Double> samples(String name, String... labels) {
        List<Double> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || !line.startsWith(name)) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            String bare = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
            if (!bare.equals(name)) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= series.contains(l);
            }
            if (all) {
                out.add(Double.parseDouble(line.substring(space + 1)));
            }
        }
        return out;
    }

    /** The sum of the matching samples; 0 when there are none (a counter not yet used is not exported). */
    public double value(String name, String... labels) {
        return samples(name, labels).stream().mapToDouble(Double::doubleValue).sum();
    }

    public boolean has(String name) {
        return !samples(name).isEmpty();
    }

    public String text() {
        return text;
    }

    /** Scrapes until the value of {@code name} with {@code labels} satisfies {@code until}; returns that scrape. */
    public static Metrics await(MeshnodeProcess node, Duration timeout, DoublePredicate until, String name, String... labels) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Metrics m = scrape(node);
        while (!until.test(m.value(name, labels))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting on " + name + " "
                        + String.join(",", labels) + "; last value " + m.value(name, labels));
            }
            MeshnodeProcess.sleep(50);
            m = scrape(node);
        }
        return m;
    }
}
