package org.fleetmesh.it;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * A WebSocket client written against RFC 6455 and RFC 7692 directly, on a plain socket, so that a test sees what no
 * library shows: each frame's RSV1 bit (compressed or not) and the close code. It offers permessage-deflate (with
 * {@code client_max_window_bits}, as browsers do), keeps both directions' deflate context (no context takeover is not
 * asked for), and can send a compressed message it built itself, e.g. one that inflates to far more than it is.
 */
final class RawWebSocket implements AutoCloseable {
    /** A message as received: its text and whether it came compressed. */
    record Message(int opcode, boolean compressed, byte[] payload, int wireBytes) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        /** A close frame's status code, or -1. */
        int closeCode() {
            return opcode == 8 && payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : -1;
        }
    }

    private static final byte[] TAIL = { 0, 0, (byte) 0xff, (byte) 0xff };
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final SecureRandom random = new SecureRandom();
    private final Inflater inflater = new Inflater(true);
    private final Deflater deflater = new Deflater(6, true);
    /** The 101's Sec-WebSocket-Extensions, or null. */
    final String agreed;

    private RawWebSocket(Socket socket, String agreed) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.agreed = agreed;
    }

    /** Connects to {@code ws://127.0.0.1:port/path}, offering {@code extensions} (null: none). */
    static RawWebSocket connect(int port, String path, String extensions) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(15_000);
        byte[] key = new byte[16];
        new SecureRandom().nextBytes(key);
        String request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\n"
                + "Sec-WebSocket-Version: 13\r\n" + (extensions == null ? "" : "Sec-WebSocket-Extensions: " + extensions + "\r\n")
                + "\r\n";
        s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
        DataInputStream in = new DataInputStream(s.getInputStream());
        Map<String, String> headers = new LinkedHashMap<>();
        String status = line(in);
        if (!status.startsWith("HTTP/1.1 101")) {
            s.close();
            throw new IOException("no upgrade: " + status);
        }
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        return new RawWebSocket(s, headers.get("sec-websocket-extensions"));
    }

    private static String line(DataInputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    boolean deflateAgreed() {
        return agreed != null && agreed.toLowerCase(Locale.ROOT).startsWith("permessage-deflate");
    }

    /** Sends a text message, compressed (RSV1, with this client's context) or not. */
    void sendText(String text, boolean compress) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        if (compress) {
            sendCompressed(deflate(payload));
        } else {
            frame(0x1, false, payload);
        }
    }

    /** Sends {@code deflated} (raw DEFLATE blocks ending in a sync flush, its 4-byte tail removed) as one compressed text message. */
    void sendCompressed(byte[] deflated) throws IOException {
        frame(0x1, true, deflated);
    }

    /** {@code payload} deflated with this client's context, as RFC 7692 §7.2.1 sends it. */
    byte[] deflate(byte[] payload) {
        deflater.setInput(payload);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = deflater.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH)) > 0) {
            b.write(buf, 0, n);
            if (n < buf.length) {
                break;
            }
        }
        byte[] all = b.toByteArray();
        return Arrays.copyOf(all, all.length - 4);
    }

    private synchronized void frame(int opcode, boolean rsv1, byte[] payload) throws IOException {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(0x80 | (rsv1 ? 0x40 : 0) | opcode);
        int len = payload.length;
        if (len < 126) {
            f.write(0x80 | len);
        } else if (len < 65536) {
            f.write(0x80 | 126);
            f.write(len >>> 8);
            f.write(len);
        } else {
            f.write(0x80 | 127);
            for (int i = 7; i >= 0; i--) {
                f.write((int) ((long) len >>> (8 * i)));
            }
        }
        byte[] mask = new byte[4];
        random.nextBytes(mask);
        f.write(mask);
        for (int i = 0; i < len; i++) {
            f.write(payload[i] ^ mask[i & 3]);
        }
        out.write(f.toByteArray());
        out.flush();
    }

    /** The next whole message (fragments joined, compressed ones inflated), or null when the socket ended. */
    Message read() throws IOException {
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        int opcode = -1;
        boolean compressed = false;
        int wire = 0;
        while (true) {
            int b0;
            try {
                b0 = in.read();
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException e) {
                return null;
            }
            if (b0 == -1) {
                return null;
            }
            int b1 = in.readUnsignedByte();
            long len = b1 & 0x7f;
            if (len == 126) {
                len = in.readUnsignedShort();
            } else if (len == 127) {
                len = in.readLong();
            }
            byte[] data = new byte[(int) len];
            in.readFully(data);
            wire += data.length;
            int op = b0 & 0x0f;
            if (op >= 8) { // control frames stand alone
                return new Message(op, false, data, data.length);
            }
            if (op != 0) {
                opcode = op;
                compressed = (b0 & 0x40) != 0;
            }
            payload.write(data);
            if ((b0 & 0x80) != 0) {
                break;
            }
        }
        byte[] bytes = payload.toByteArray();
        return new Message(opcode, compressed, compressed ? inflate(bytes) : bytes, wire);
    }

    private byte[] inflate(byte[] data) throws IOException {
        inflater.setInput(concat(data, TAIL));
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[16384];
        try {
            while (true) {
                int n = inflater.inflate(buf);
                if (n == 0 && (inflater.needsInput() || inflater.finished())) {
                    break;
                }
                b.write(buf, 0, n);
            }
        } catch (DataFormatException e) {
            throw new IOException("the server's compressed message does not inflate: " + e.getMessage(), e);
        }
        return b.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
