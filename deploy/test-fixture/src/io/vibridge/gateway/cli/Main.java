package io.vibridge.gateway.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramSocket;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * STAND-IN, NOT THE GATEWAY. A one-class test fixture for deploy/scripts/selftest.sh only: it lets
 * the service image (deploy/Dockerfile, deploy/bin/vibridge, the local base) be built and run
 * before module gateway exists. It has the real main class name so that the launcher's contract is
 * what gets exercised. It is compiled by the self-test into a temporary jar and never shipped.
 *
 * <p>Contract it mimics: {@code healthcheck --url URL} exits 0 when a GET of URL answers 2xx, else
 * 1; any other command prints its arguments and serves /health, /ready and /metrics on port 9464
 * until the JVM is stopped.
 */
public final class Main {
  private static final int ADMIN_PORT = 9464;

  private Main() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("healthcheck")) {
      System.exit(healthcheck(args));
    }
    System.out.println("vibridge stand-in: args=" + Arrays.toString(args)
        + " user=" + System.getProperty("user.name") + " java=" + Runtime.version());
    HttpServer server = HttpServer.create(new InetSocketAddress(ADMIN_PORT), 0);
    server.createContext("/health", exchange -> reply(exchange, "text/plain", "UP\n"));
    server.createContext("/ready", exchange -> reply(exchange, "text/plain", "READY\n"));
    server.createContext("/metrics", exchange -> reply(exchange, "text/plain; version=0.0.4",
        "# TYPE vibridge_standin_up gauge\nvibridge_standin_up 1\n"));
    server.start();
    // Like the real target, hold the RoCEv2 UDP port: the image's health check looks for it.
    DatagramSocket roce = args.length > 0 && args[0].equals("target")
        ? new DatagramSocket(4791) : null;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.stop(0);
      System.out.println("vibridge stand-in: stopped");
      stopped.countDown();
    }));
    stopped.await();
  }

  private static int healthcheck(String[] args) {
    String url = "http://127.0.0.1:" + ADMIN_PORT + "/health";
    for (int i = 1; i < args.length - 1; i++) {
      if (args[i].equals("--url")) {
        url = args[i + 1];
      }
    }
    // HttpURLConnection, not java.net.http.HttpClient: a short-lived JVM spends several times the CPU
    // starting HttpClient, and Docker runs this check every 5 s.
    try {
      HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
      connection.setConnectTimeout(2000);
      connection.setReadTimeout(3000);
      int status = connection.getResponseCode();
      System.out.println(url + " -> " + status);
      return status / 100 == 2 ? 0 : 1;
    } catch (IOException | IllegalArgumentException e) {
      System.out.println(url + " -> " + e);
      return 1;
    }
  }

  private static void reply(HttpExchange exchange, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(200, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
