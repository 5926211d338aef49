import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The image's health command (there is no shell tool such as curl in the image): GET a local URL and exit 0 on
 * HTTP 200, 1 otherwise. Only java.base, so the JVM it starts stays small: {@code HealthProbe [path]} (default
 * {@code /q/health/ready}) on port {@code QUARKUS_HTTP_PORT} (default 7777) of 127.0.0.1.
 */
public final class HealthProbe {
    private HealthProbe() {
    }

    public static void main(String[] args) {
        String path = args.length > 0 ? args[0] : "/q/health/ready";
        String portText = System.getenv().getOrDefault("QUARKUS_HTTP_PORT", "7777");
        try (Socket s = new Socket()) {
            int port = Integer.parseInt(portText.trim());
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] head = new byte[12];
            int n = 0;
            while (n < head.length) {
                int r = in.read(head, n, head.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            String status = new String(head, 0, n, StandardCharsets.US_ASCII);
            if (status.startsWith("HTTP/1.1 200") || status.startsWith("HTTP/1.0 200")) {
                System.exit(0);
            }
            System.err.println("health: " + path + " answered " + status.trim());
        } catch (Exception e) {
            System.err.println("health: " + path + " on port " + portText + ": " + e);
        }
        System.exit(1);
    }
}
