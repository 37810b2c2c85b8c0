/**
 * The host side of the real-peer interop suite: programs that speak byte for byte what rdma-core's
 * {@code rping} and {@code ibv_rc_pingpong} speak, on the project's verbs SPI (soft RoCEv2 device), and rping's
 * client role over VI/TCP through the gateway. Entry point: {@link io.vibridge.interop.Main}.
 */
package io.vibridge.interop;
