package io.vibridge.iwarp.client;

/**
 * One completed work request, as {@link IwarpEndpoint#poll} hands it out.
 *
 * @param wrId       the identifier given when the request was posted
 * @param kind       what the request was
 * @param byteLength bytes moved: the Send's length for {@link WorkKind#RECV}, the posted length otherwise
 */
public record Completion(long wrId, WorkKind kind, int byteLength) {
}
