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
 * <p>A read blocks in one {@code read} call (no poll before it) when the driver has set no timeout; with a timeout
 * (the driver's check for pending notifications sets 1 ms, {@code socketTimeout} and the connect phase set others) it
 * waits in a selector and throws {@link SocketTimeoutException} as a TCP socket would. The driver's cancel requests
 * open their own socket through the same factory.
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
        private Selector selector; // for reads with a timeout; used by the reading thread only
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
            try {
                ch.connect(UnixDomainSocketAddress.of(path));
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
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
                    ch.close(); // wakes a reader blocked in read (AsynchronousCloseException)
                }
            } finally {
                Selector s = selector;
                if (s != null) {
                    s.close();
                }
            }
        }

        @Override
        public String toString() {
            return "LocalSocket[" + path + (closed ? ", closed" : channel != null ? ", connected" : "") + "]";
        }

        private int read(ByteBuffer dst) throws IOException {
            SocketChannel ch = open();
            // a channel closes itself when its thread is interrupted, where a TCP socket ignores the interrupt: a
            // thread that carries an interrupt into a statement (e.g. clean-up after an InterruptedException) would
            // lose its connection, so the flag is set aside for the call and restored after it. (An interrupt that
            // arrives while the call blocks still closes the connection: the driver reports it broken.)
            boolean interrupted = Thread.interrupted();
            try {
                return read(ch, dst);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private int read(SocketChannel ch, ByteBuffer dst) throws IOException {
            int timeout = soTimeout;
            if (timeout == 0) {
                return ch.read(dst); // blocks in the one call
            }
            // with a timeout: non-blocking reads between selects, the channel blocking again afterwards
            if (selector == null) {
                selector = Selector.open();
            }
            ch.configureBlocking(false);
            try {
                SelectionKey key = ch.register(selector, SelectionKey.OP_READ);
                try {
                    long deadline = System.nanoTime() + timeout * 1_000_000L;
                    while (true) {
                        int n = ch.read(dst);
                        if (n != 0) {
                            return n;
                        }
                        long left = (deadline - System.nanoTime()) / 1_000_000L;
                        if (left <= 0) {
                            throw new SocketTimeoutException("Read timed out");
                        }
                        selector.select(left);
                        selector.selectedKeys().clear();
                    }
                } finally {
                    key.cancel();
                    selector.selectNow(); // deregisters the cancelled key, so that the channel may block again
                }
            } finally {
                if (ch.isOpen()) {
                    ch.configureBlocking(true);
                }
            }
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
                ByteBuffer src = ByteBuffer.wrap(b, off, len);
                SocketChannel ch = open();
                boolean interrupted = Thread.interrupted(); // as in read
                try {
                    while (src.hasRemaining()) {
                        ch.write(src); // blocking: writes it all (non-blocking only inside a timed read)
                    }
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void close() throws IOException {
                LocalSocket.this.close();
            }
        }
    }
}
