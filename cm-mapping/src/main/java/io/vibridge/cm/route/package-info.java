/**
 * The route model (CM-MAPPING §6): {@link io.vibridge.cm.route.Routes} maps a VI called
 * discriminator to a {@link io.vibridge.cm.route.Route}: target address and port, Service ID
 * scheme, CM format, FlowC, receive size and buffers. Built in plain Java or from Typesafe Config.
 */
package io.vibridge.cm.route;
