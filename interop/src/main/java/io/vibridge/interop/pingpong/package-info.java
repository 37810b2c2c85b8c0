/**
 * ibv_rc_pingpong's server and client (rdma-core libibverbs/examples/rc_pingpong.c, pingpong.c) on the verbs
 * SPI: the LID:QPN:PSN:GID exchange over TCP, the out-of-band QP connection, the SEND ping-pong.
 */
package io.vibridge.interop.pingpong;
