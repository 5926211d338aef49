package org.fleetmesh.relay.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.ServerWebSocket;

/** What a relay can make the sync client's link hold: one message of at most 1 MiB, unread messages to a byte bound. */
class RelayLinkTest {
    private Vertx vertx;
    private HttpServer server;
    private volatile Consumer<ServerWebSocket> onConnect = ws -> {
    };

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer(new HttpServerOptions().setMaxWebSocketMessageSize(64 << 20)
                .setMaxWebSocketFrameSize(64 << 20)).webSocketHandler(ws -> onConnect.accept(ws));
        server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private URI uri() {
        return URI.create("ws://127.0.0.1:" + server.actualPort() + "/");
    }

    private static String event(int size) {
        return "[\"EVENT\",\"s\",{\"content\":\"" + "y".repeat(size) + "\"}]";
    }

    @Test
    void aMessageOverOneMebibyteEndsTheConnection() throws Exception {
        onConnect = ws -> {
            ws.writeTextMessage(event(1000));
            ws.writeTextMessage(event(2 << 20));
            ws.writeTextMessage(event(1000));
        };
        try (RelayLink link = RelayLink.connect(uri(), 5)) {
            assertInstanceOf(RelayLink.Message.class, link.next(5, TimeUnit.SECONDS));
            RelayLink.Incoming end = link.next(5, TimeUnit.SECONDS);
            RelayLink.Closed closed = assertInstanceOf(RelayLink.Closed.class, end, String.valueOf(end));
            assertTrue(closed.why().startsWith("the relay sent a message over 1048576 bytes"), closed.why());
        }
    }

    @Test
    void aMessageJustUnderTheBoundIsRead() throws Exception {
        onConnect = ws -> ws.writeTextMessage(event(RelayLink.DEFAULT_MAX_MESSAGE_SIZE - 100));
        try (RelayLink link = RelayLink.connect(uri(), 5)) {
            assertInstanceOf(RelayLink.Message.class, link.next(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void unreadMessagesAreHeldToTheByteBoundNotOnlyTheCount() throws Exception {
        int n = 60; // 60 x 512 KiB = 30 MiB sent, far below 4096 messages
        onConnect = ws -> {
            for (int i = 0; i < n; i++) {
                ws.writeTextMessage(event(512 * 1024));
            }
        };
        try (RelayLink link = RelayLink.connect(uri(), 5)) {
            // wait for the inbox to fill as far as it will
            for (int i = 0; i < 100 && link.unreadChars() < RelayLink.INBOX_CHARS; i++) {
                Thread.sleep(100);
            }
            Thread.sleep(1000); // and whatever more would come
            assertTrue(link.unreadChars() <= RelayLink.INBOX_CHARS + RelayLink.DEFAULT_MAX_MESSAGE_SIZE,
                    "unread " + link.unreadChars() + " chars");
            assertTrue(link.unreadChars() >= RelayLink.INBOX_CHARS, "filled to the bound: " + link.unreadChars());
            // reading drains it and resumes the socket: every message arrives
            for (int i = 0; i < n; i++) {
                RelayLink.Incoming in = link.next(5, TimeUnit.SECONDS);
                assertNotNull(in, "message " + i);
                assertInstanceOf(RelayLink.Message.class, in, "message " + i);
            }
            assertEquals(0, link.unreadChars());
        }
    }
}
