/**
 * Testcontainers module for vibridge: {@link io.vibridge.testcontainers.VibridgeContainer} (the gateway)
 * and {@link io.vibridge.testcontainers.VibridgeTargetContainer} (the demo InfiniBand-side target), after
 * Testcontainers' own modules (a {@code DockerImageName} constructor checked with
 * {@code assertCompatibleWith}, {@code withXxx} configuration rendered at start, endpoint getters).
 */
package io.vibridge.testcontainers;
