/**
 * The seed-001 private data and FlowC (CM-MAPPING §2-4): {@link io.vibridge.cm.hello.Hello} (CM REQ),
 * {@link io.vibridge.cm.hello.HelloReply} (CM REP), {@link io.vibridge.cm.hello.FlowControl}, and for
 * FlowC 0 the per-Send {@link io.vibridge.cm.hello.FlowControlHeader} and the credit arithmetic
 * {@link io.vibridge.cm.hello.FlowCredits}.
 */
package io.vibridge.cm.hello;
