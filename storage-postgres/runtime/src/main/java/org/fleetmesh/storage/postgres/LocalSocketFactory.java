package org.fleetmesh.storage.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Properties;

import javax.net.SocketFactory;

/**
 * The PostgreSQL driver's sockets to the embedded cluster over its Unix-domain socket instead of loopback TCP
 * ({@code socketFactory=org.fleetmesh.storage.postgres.LocalSocketFactory&socketFactoryArg=<path of .s.PGSQL.port>}
 * in the JDBC URL; docs/spec/storage.md "The embedded cluster's socket"). A round trip then skips the TCP/IP stack on
 * both sides: on the two-vCPU machine of docs/BENCHMARKS.md a tenth of the query thread's CPU was loopback TCP.
 *
 * <p>The channel is non-blocking and waits in a selector of its own, for reading only, as the JDK's TCP sockets wait in
 * {@code poll}: a thread blocked in a Unix-domain {@code read} is also woken each time the server takes in what this
 * side wrote (the kernel wakes every sleeper on the socket when write space frees up), one wasted context switch per
 * round trip (measured: 2.96 against 1.74-1.93 voluntary switches of the query thread per one-statement REQ), which
 * a selector waiting for readability does not see. A timeout (the driver's check for pending notifications sets 1 ms,
 * {@code socketTimeout} and the connect phase set others) throws {@link SocketTimeoutException} as a TCP socket would.
 * An interrupt neither closes the connection nor ends a wait, as with TCP. The driver's cancel requests open their
 * own socket through the same factory.
 */
public final class LocalSocketFactory extends SocketFactory {
    /** The JDBC URL parameter naming the socket's path. */
    static final String ARG = "socketFactoryArg";

    private final Path path;

    /** Called by the driver with the connection's properties; {@value #ARG} is the socket's path. */
    public LocalSocketFactory(Properties info) {
        String p = info.getProperty(ARG);
        if (p == null || p.isEmpty()) {
            throw new IllegalArgumentException(ARG + " (the path of the server's Unix-domain socket) is required");
        }
        this.path = Path.of(p);
    }

    @Override
    public Socket createSocket() {
        return new LocalSocket(path);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected();
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return connected();
    }

    private Socket connected() throws IOException {
        LocalSocket s = new LocalSocket(path);
        s.connect(null, 0);
        return s;
    }

    /**
     * A {@link Socket} over a Unix-domain {@link SocketChannel}: the subset of the API the PostgreSQL driver uses
     * (connect, the streams, timeouts, buffer sizes, close). TCP's options ({@code TCP_NODELAY}, keep-alive) do not
     * apply and are only remembered. The address given to {@code connect} is ignored: the path is the address.
     */
    static final class LocalSocket extends Socket {
        private final Path path;
        private volatile SocketChannel channel;
        private volatile int soTimeout;
        private boolean tcpNoDelay;
        private boolean keepAlive;
        private volatile boolean closed;
        /** Waits for the channel: readable (its key's interest), or writable while a write waits for room. */
        private Selector selector;
        private SelectionKey key;
        private final InputStream in = new In();
        private final OutputStream out = new Out();

        LocalSocket(Path path) {
            this.path = path;
        }

        @Override
        public void connect(SocketAddress ignored) throws IOException {
            connect(ignored, 0);
        }

        @Override
        public synchronized void connect(SocketAddress ignored, int timeout) throws IOException {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            if (channel != null) {
                throw new SocketException("already connected");
            }
            // a Unix-domain connect does not wait on a network: it succeeds or fails at once (a full backlog aside)
            SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            Selector sel = null;
            try {
                ch.connect(UnixDomainSocketAddress.of(path));
                ch.configureBlocking(false);
                sel = Selector.open();
                key = ch.register(sel, SelectionKey.OP_READ);
            } catch (IOException | RuntimeException e) {
                ch.close();
                if (sel != null) {
                    sel.close();
                }
                throw e;
            }
            selector = sel;
            channel = ch;
        }

        @Override
        public boolean isConnected() {
            return channel != null;
        }

        @Override
        public boolean isBound() {
            return channel != null;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            open();
            return in;
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            open();
            return out;
        }

        private SocketChannel open() throws SocketException {
            SocketChannel ch = channel;
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            if (ch == null) {
                throw new SocketException("Socket is not connected");
            }
            return ch;
        }

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            if (timeout < 0) {
                throw new IllegalArgumentException("timeout < 0");
            }
            soTimeout = timeout;
        }

        @Override
        public int getSoTimeout() {
            return soTimeout;
        }

        @Override
        public void setTcpNoDelay(boolean on) {
            tcpNoDelay = on;
        }

        @Override
        public boolean getTcpNoDelay() {
            return tcpNoDelay;
        }

        @Override
        public void setKeepAlive(boolean on) {
            keepAlive = on;
        }

        @Override
        public boolean getKeepAlive() {
            return keepAlive;
        }

        @Override
        public void setReceiveBufferSize(int size) throws SocketException {
            option(java.net.StandardSocketOptions.SO_RCVBUF, size);
        }

        @Override
        public int getReceiveBufferSize() throws SocketException {
            return option(java.net.StandardSocketOptions.SO_RCVBUF);
        }

        @Override
        public void setSendBufferSize(int size) throws SocketException {
            option(java.net.StandardSocketOptions.SO_SNDBUF, size);
        }

        @Override
        public int getSendBufferSize() throws SocketException {
            return option(java.net.StandardSocketOptions.SO_SNDBUF);
        }

        private void option(java.net.SocketOption<Integer> name, int value) throws SocketException {
            if (value <= 0) {
                throw new IllegalArgumentException("buffer size <= 0");
            }
            try {
                open().setOption(name, value);
            } catch (SocketException e) {
                throw e;
            } catch (IOException e) {
                throw new SocketException(e.getMessage());
            }
        }

        private int option(java.net.SocketOption<Integer> name) throws SocketException {
            try {
                return open().getOption(name);
            } catch (SocketException e) {
                throw e;
            } catch (IOException e) {
                throw new SocketException(e.getMessage());
            }
        }

        @Override
        public void shutdownInput() throws IOException {
            open().shutdownInput();
        }

        @Override
        public void shutdownOutput() throws IOException {
            open().shutdownOutput();
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public synchronized void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            SocketChannel ch = channel;
            try {
                if (ch != null) {
                    ch.close();
                }
            } finally {
                Selector s = selector;
                if (s != null) {
                    s.close(); // ends a wait in progress on another thread, which then reports the socket closed
                }
            }
        }

        @Override
        public String toString() {
            return "LocalSocket[" + path + (closed ? ", closed" : channel != null ? ", connected" : "") + "]";
        }

        private int read(ByteBuffer dst) throws IOException {
            SocketChannel ch = open();
            int timeout = soTimeout;
            long deadline = timeout == 0 ? 0 : System.nanoTime() + timeout * 1_000_000L;
            boolean interrupted = false;
            try {
                while (true) {
                    int n = ch.read(dst);
                    if (n != 0) {
                        return n;
                    }
                    long left = 0;
                    if (timeout != 0) {
                        long ns = deadline - System.nanoTime();
                        if (ns <= 0) {
                            throw new SocketTimeoutException("Read timed out");
                        }
                        left = (ns + 999_999) / 1_000_000; // a wait of the whole timeout, not one cut short
                    }
                    interrupted |= await(left);
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void write(ByteBuffer src) throws IOException {
            SocketChannel ch = open();
            boolean interrupted = false;
            try {
                while (src.hasRemaining()) {
                    if (ch.write(src) == 0) { // the socket's buffer is full: wait for room
                        key.interestOps(SelectionKey.OP_WRITE);
                        try {
                            interrupted |= await(0);
                        } finally {
                            if (key.isValid()) {
                                key.interestOps(SelectionKey.OP_READ);
                            }
                        }
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Waits up to {@code millis} (0: no limit) for the key's interest; returns whether the thread was interrupted
         * (the flag is cleared, or every later wait would return at once, and restored by the caller at its end).
         */
        private boolean await(long millis) throws IOException {
            try {
                if (millis > 0) {
                    selector.select(millis);
                } else {
                    selector.select();
                }
                selector.selectedKeys().clear();
            } catch (java.nio.channels.ClosedSelectorException e) {
                throw new SocketException("Socket is closed");
            }
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            return Thread.interrupted();
        }

        private final class In extends InputStream {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                java.util.Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                return LocalSocket.this.read(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public int available() {
                return 0; // unknown without FIONREAD; the driver then peeks with a 1 ms timeout
            }

            @Override
            public void close() throws IOException {
                LocalSocket.this.close();
            }
        }

        private final class Out extends OutputStream {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                java.util.Objects.checkFromIndexSize(off, len, b.length);
                LocalSocket.this.write(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void close() throws IOException {
                LocalSocket.this.close();
            }
        }
    }
}
