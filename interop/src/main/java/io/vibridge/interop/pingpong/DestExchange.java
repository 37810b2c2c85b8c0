package io.vibridge.interop.pingpong;

import io.vibridge.interop.support.Deadline;
import io.vibridge.interop.support.InteropFailure;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;

/**
 * ibv_rc_pingpong's out-of-band exchange over TCP (libibverbs/examples/rc_pingpong.c pp_client_exch_dest,
 * pp_server_exch_dest):
 *
 * <pre>
 * client                                  server
 *   connect                                 listen(1), accept, close the listener
 *   write  52-byte address message  ----&gt;   read 52
 *                                           pp_connect_ctx: our QP to RTR and RTS
 *   read 52                         &lt;----   write 52-byte address message
 *   write "done\0" (sizeof "done")  ----&gt;   read: must be sizeof "done" = 5 bytes
 *   close                                   close
 * </pre>
 *
 * <p>The server connects its QP before it answers, so the client may send at once. Every read and the accept
 * are bounded by the run's deadline. The client retries a refused connection until the deadline (rc_pingpong
 * gives up at once; a script starting both sides cannot order them exactly).
 */
public final class DestExchange {
    /** {@code write(sockfd, "done", sizeof "done")}: the four letters and the NUL. */
    static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private DestExchange() {
    }

    /** pp_client_exch_dest: sends ours, returns the server's. */
    public static PingpongDest client(InetSocketAddress server, PingpongDest mine, Deadline deadline, PrintStream out)
            throws InteropFailure {
        try (Socket s = connect(server, deadline, out)) {
            s.setSoTimeout(deadline.remainingMillisForSocket());
            s.getOutputStream().write(mine.toMessage());
            byte[] msg = readFully(s.getInputStream(), PingpongDest.MESSAGE_LENGTH, deadline,
                    "the server's address message");
            s.getOutputStream().write(DONE);
            s.getOutputStream().flush();
            return parse(msg);
        } catch (IOException e) {
            throw new InteropFailure("Couldn't read/write remote address: " + e, e);
        }
    }

    private static Socket connect(InetSocketAddress server, Deadline deadline, PrintStream out)
            throws IOException, InteropFailure {
        boolean told = false;
        for (;;) {
            Socket s = new Socket();
            try {
                s.connect(server, deadline.remainingMillisForSocket());
                s.setTcpNoDelay(true);
                return s;
            } catch (ConnectException e) {
                s.close();
                if (!told) {
                    out.println("waiting for the server at " + server.getHostString() + ":" + server.getPort()
                            + " (" + e.getMessage() + ")");
                    told = true;
                }
                if (deadline.remainingNanos() < 200_000_000L) {
                    throw new InteropFailure("Couldn't connect to " + server.getHostString() + ":" + server.getPort()
                            + ": " + e.getMessage());
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new InteropFailure("interrupted while connecting to the server");
                }
            } catch (SocketTimeoutException e) {
                s.close();
                throw deadline.timeout("the TCP connection to " + server.getHostString() + ":" + server.getPort());
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
    }

    /** pp_server_exch_dest, split where the QP is connected: {@link #accept}, then {@link #answer}. */
    public static final class Server implements AutoCloseable {
        private final ServerSocket listener;
        private Socket conn;

        private Server(ServerSocket listener) {
            this.listener = listener;
        }

        /** {@code socket, SO_REUSEADDR, bind, listen(sockfd, 1)}. */
        public static Server bind(InetSocketAddress address) throws IOException {
            ServerSocket ss = new ServerSocket();
            try {
                ss.setReuseAddress(true);
                ss.bind(address, 1);
                return new Server(ss);
            } catch (IOException e) {
                ss.close();
                throw e;
            }
        }

        public int port() {
            return listener.getLocalPort();
        }

        /** accept (then close the listener, as rc_pingpong does), read the client's 52 bytes. */
        public PingpongDest accept(Deadline deadline) throws InteropFailure {
            try {
                listener.setSoTimeout(deadline.remainingMillisForSocket());
                conn = listener.accept();
                listener.close();
                conn.setTcpNoDelay(true);
                conn.setSoTimeout(deadline.remainingMillisForSocket());
                return parse(readFully(conn.getInputStream(), PingpongDest.MESSAGE_LENGTH, deadline,
                        "the client's address message"));
            } catch (SocketTimeoutException e) {
                throw deadline.timeout("a client's TCP connection on port " + listener.getLocalPort());
            } catch (IOException e) {
                throw new InteropFailure("Couldn't read remote address: " + e, e);
            }
        }

        /** Writes ours and reads the client's {@code "done"}. */
        public void answer(PingpongDest mine, Deadline deadline) throws InteropFailure {
            try {
                conn.setSoTimeout(deadline.remainingMillisForSocket());
                conn.getOutputStream().write(mine.toMessage());
                conn.getOutputStream().flush();
                byte[] done = readFully(conn.getInputStream(), DONE.length, deadline, "the client's \"done\"");
                if (!Arrays.equals(done, DONE)) {
                    throw new InteropFailure("Couldn't send/recv local address: expected \"done\\0\" from the client");
                }
            } catch (IOException e) {
                throw new InteropFailure("Couldn't send/recv local address: " + e, e);
            }
        }

        @Override
        public void close() {
            try {
                listener.close();
                if (conn != null) {
                    conn.close();
                }
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private static byte[] readFully(InputStream in, int n, Deadline deadline, String what)
            throws IOException, InteropFailure {
        byte[] b;
        try {
            b = in.readNBytes(n);
        } catch (SocketTimeoutException e) {
            throw deadline.timeout(what);
        }
        if (b.length != n) {
            throw new InteropFailure(b.length + "/" + n + ": the peer closed the connection before sending " + what);
        }
        return b;
    }

    private static PingpongDest parse(byte[] msg) throws InteropFailure {
        try {
            return PingpongDest.parse(msg);
        } catch (IllegalArgumentException e) {
            throw new InteropFailure(e.getMessage(), e);
        }
    }
}
