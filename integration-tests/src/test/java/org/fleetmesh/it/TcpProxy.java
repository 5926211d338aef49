package org.fleetmesh.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay in the test process between two nodes, on a free loopback port: bytes pass through unchanged until
 * {@link #cut()} closes every connection it carries and closes each new one at once (a partition both sides see as a
 * dropped link), until {@link #restore()}; {@link #stall()} loses every byte on connections that stay open. The
 * target port may be set after the proxy's port is known.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile int targetPort;
    private volatile boolean cut;
    private volatile boolean stalled;
    private volatile boolean closed;

    TcpProxy() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        acceptor = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Where connections go from now on. */
    TcpProxy target(int port) {
        this.targetPort = port;
        return this;
    }

    /** Connections accepted so far (cut ones included). */
    int accepted() {
        return accepted.get();
    }

    /** The partition: every carried connection is closed, new ones are closed as soon as they are accepted. */
    void cut() {
        cut = true;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    /** The partition heals: new connections pass again. */
    void restore() {
        stalled = false;
        cut = false;
    }

    /**
     * A link that dies without either side knowing yet: connections stay open, but every byte sent either way from
     * now on is read and thrown away, until {@link #cut()} (or {@link #restore()}).
     */
    void stall() {
        stalled = true;
    }

    private void accept() {
        while (!closed) {
            Socket in;
            try {
                in = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            if (cut || targetPort == 0) {
                closeQuietly(in);
                continue;
            }
            Socket out = new Socket();
            try {
                out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(in);
                closeQuietly(out);
                continue;
            }
            sockets.add(in);
            sockets.add(out);
            if (cut) { // cut while connecting
                closeQuietly(in);
                closeQuietly(out);
                continue;
            }
            pump(in, out);
            pump(out, in);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
                int n;
                while ((n = i.read(buf)) >= 0) {
                    if (stalled) {
                        continue; // lost on the way
                    }
                    o.write(buf, 0, n);
                    o.flush();
                }
            } catch (IOException e) {
                // one side closed (or the cut): close both
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // already closed
        }
        cut();
    }
}
