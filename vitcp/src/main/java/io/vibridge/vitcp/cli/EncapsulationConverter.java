package io.vibridge.vitcp.cli;

import io.vibridge.vitcp.wire.Encapsulation;

/** {@code --framing vitcp|rdmatcp}: {@link Encapsulation#ofLabel(String)}. */
public final class EncapsulationConverter extends OptionConverter<Encapsulation> {

    public EncapsulationConverter() {
        super(Encapsulation::ofLabel);
    }
}
