/**
 * Service IDs derived from IP ports (CM-MAPPING §1): {@link io.vibridge.cm.serviceid.ServiceIdScheme},
 * {@link io.vibridge.cm.serviceid.RdmaPortSpace} and {@link io.vibridge.cm.serviceid.ServiceId}
 * (both directions).
 */
package io.vibridge.cm.serviceid;
