package io.vibridge.verbs;

/** Receives connection manager events. */
@FunctionalInterface
public interface CmEventHandler {
    void onEvent(CmEvent event);
}
