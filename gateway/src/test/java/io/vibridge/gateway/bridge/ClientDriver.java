package io.vibridge.gateway.bridge;

import io.vibridge.gateway.metrics.ClientProtocol;
import io.vibridge.gateway.server.GatewayServer;
import java.io.IOException;

/**
 * A client front end of the gateway as the lifecycle suites ({@link DisconnectTest}, {@link HostileClientTest})
 * drive it, in the protocol-neutral terms of the generic {@link BridgedConnection}: the configuration its
 * listeners need, a well-behaved client that sends messages and reads their echoes, and a hostile one that
 * sends bytes of its own protocol that the gateway must refuse. Each implementation knows what "the gateway
 * closed me" looks like on its wire and what the gateway logs for each hostile input.
 */
sealed interface ClientDriver extends AutoCloseable permits ViTcpDriver, IwarpDriver {

    /** The gateway configuration this front end needs: its listeners (one per route given) and request timeout. */
    String config();

    /** The front end's tag in the gateway's metrics. */
    ClientProtocol protocol();

    /** A client of {@code route} on {@code gateway}, connected, asking {@code assurance}. */
    Session connect(GatewayServer gateway, String route, Assurance assurance, int unreadEchoes)
            throws IOException, InterruptedException;

    /** A client of the usual kind that leaves at most 4 echoes unread. */
    default Session connect(GatewayServer gateway, String route) throws IOException, InterruptedException {
        return connect(gateway, route, Assurance.USUAL, 4);
    }

    /** A TCP connection to {@code route}'s listener that has sent nothing yet. */
    Hostile hostile(GatewayServer gateway, String route) throws IOException;

    /** A hand-driven connection to {@code route} whose setup the gateway accepted. */
    Hostile established(GatewayServer gateway, String route) throws IOException;

    /** What the gateway's log line names for {@code input} (on a line that also names the client's address). */
    String reason(Hostility input);

    @Override
    void close();

    /** What a client asks of the front end, in the front end's own terms. */
    enum Assurance {
        /** VI/TCP: Reliable Delivery with descriptor flow control; iWARP: FPDUs with CRC. */
        USUAL,
        /** VI/TCP: Reliable Reception (acknowledged once the target has it); iWARP: FPDUs with CRC. */
        STRONGEST,
        /** VI/TCP: Unreliable Delivery without flow control; iWARP: FPDUs without CRC. */
        WEAKEST
    }

    /** How the gateway ends a client's connection. */
    enum Ending {
        /** The target disconnected or the gateway shut down: VI/TCP closes the VI; iWARP ends with a FIN only. */
        ORDERLY,
        /** The InfiniBand side failed: VI/TCP closes the VI; iWARP sends a Terminate, then the FIN. */
        FAILURE
    }

    /** What a hostile client does. */
    enum Hostility {
        /** Connects and sends nothing. */
        SILENT,
        /** Sends the first bytes of its connect request, then nothing. */
        PART_OF_THE_REQUEST,
        /** Sends bytes that are not its protocol's connect request. */
        GARBAGE_BEFORE_THE_REQUEST,
        /** Sends a message larger than the connection takes. */
        MESSAGE_TOO_LARGE,
        /** Asks for an RDMA transfer of 2 GiB (VI/TCP: an RDMA Write header; iWARP: a Read Request). */
        OVERSIZED_RDMA_LENGTH,
        /** Sends a segment whose type or opcode its protocol reserves. */
        RESERVED_OPCODE
    }

    /** A well-behaved client of the echo target. */
    interface Session extends AutoCloseable {
        /** Sends {@code message} as one Send (blocking only while the front end's own send queue is full). */
        void send(byte[] message) throws IOException, InterruptedException;

        /** The next message the target sent (its echo, in order). */
        byte[] awaitEcho() throws IOException, InterruptedException;

        /** Leaves with whatever is in flight: VI/TCP VipDisconnect; iWARP ends its TCP output (a FIN). */
        void leave() throws IOException;

        /** Asserts that the gateway ended the connection as {@code how} says, within the suites' bound. */
        void assertClosedByGateway(Ending how) throws IOException, InterruptedException;

        @Override
        void close() throws IOException;
    }

    /** A client that speaks its protocol by hand. */
    interface Hostile extends AutoCloseable {
        /** The client's TCP port, which the gateway's log lines name. */
        int localPort() throws IOException;

        void sendPartOfTheRequest() throws IOException;

        void sendGarbage() throws IOException;

        void sendMessageLargerThanTheLimit() throws IOException;

        void sendOversizedRdmaLength() throws IOException;

        void sendReservedOpcode() throws IOException;

        /** The first part of a Send, then nothing more of it. */
        void sendPartOfAMessage() throws IOException;

        /**
         * Asserts that the gateway closed the connection after {@code input} and answered on the wire as the
         * front end's protocol says (iWARP: a Terminate with the code the input calls for once the MPA Reply was
         * sent, nothing before).
         */
        void assertClosedByGateway(Hostility input) throws IOException;

        @Override
        void close() throws IOException;
    }
}
