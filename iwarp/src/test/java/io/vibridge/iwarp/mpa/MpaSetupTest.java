package io.vibridge.iwarp.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vibridge.iwarp.wire.IwarpProtocolException;
import io.vibridge.iwarp.wire.TerminateCode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** MPA connection setup, both roles: against siw's recorded frames and against each other. */
class MpaSetupTest {

    private static MpaResponder.Outcome.Requested requested(MpaResponder r, byte[] request) {
        return (MpaResponder.Outcome.Requested) r.receive(ByteBuffer.wrap(request));
    }

    @Test
    void siwRequestGetsTheReplySiwAccepts() {
        MpaResponder r = new MpaResponder(false);
        MpaResponder.Outcome.Requested req = requested(r, MpaGoldenTest.SIW_REQUEST);
        assertThat(req.params()).isEqualTo(MpaV2Params.of(1, 1));
        MpaResponder.Accepted a = r.accept(1, 1, new byte[0]);
        assertThat(a.reply()).isEqualTo(MpaGoldenTest.SIW_REPLY);
        assertThat(a.settings().crc()).isFalse();
        assertThat(a.settings().rtr()).isEqualTo(Rtr.NONE);
    }

    @Test
    void requestIsTakenByteByByteAndNothingAfterIt() {
        MpaResponder r = new MpaResponder(false);
        byte[] withFpdu = new byte[MpaGoldenTest.SIW_REQUEST.length + 8];
        System.arraycopy(MpaGoldenTest.SIW_REQUEST, 0, withFpdu, 0, MpaGoldenTest.SIW_REQUEST.length);
        ByteBuffer in = ByteBuffer.wrap(withFpdu);
        for (int i = 0; i < MpaGoldenTest.SIW_REQUEST.length - 1; i++) {
            assertThat(r.receive(in.slice(i, 1))).isInstanceOf(MpaResponder.Outcome.NeedMore.class);
        }
        in.position(MpaGoldenTest.SIW_REQUEST.length - 1);
        assertThat(r.receive(in)).isInstanceOf(MpaResponder.Outcome.Requested.class);
        assertThat(in.position()).isEqualTo(MpaGoldenTest.SIW_REQUEST.length);
    }

    @Test
    void crcWhenEitherSideAsks() {
        byte[] withCrc = MpaFrame.enhanced(MpaKey.REQUEST, true, false, MpaV2Params.of(4, 4), new byte[0]).toBytes();
        MpaResponder r = new MpaResponder(false);
        requested(r, withCrc);
        MpaResponder.Accepted a = r.accept(4, 4, new byte[0]);
        assertThat(a.settings().crc()).isTrue();
        assertThat(MpaFrame.decode(ByteBuffer.wrap(a.reply()), 0, a.reply().length, MpaKey.REPLY).crc()).isTrue();

        MpaResponder strict = new MpaResponder(true);
        requested(strict, MpaGoldenTest.SIW_REQUEST);
        assertThat(strict.accept(1, 1, new byte[0]).settings().crc()).isTrue();
    }

    @Test
    void replyOrdNeverExceedsTheInitiatorsIrd() {
        MpaResponder r = new MpaResponder(false);
        requested(r, MpaGoldenTest.SIW_REQUEST);                // IRD 1, ORD 1
        MpaResponder.Accepted a = r.accept(16, 16, new byte[0]);
        assertThat(a.settings().ord()).isEqualTo(1);
        assertThat(a.settings().ird()).isEqualTo(16);
    }

    @Test
    void revisionOneAndMarkersAreRefusedWithARejectReply() {
        for (MpaFrame req : new MpaFrame[] {
            new MpaFrame(MpaKey.REQUEST, false, false, false, false, 1, new byte[0]),
            new MpaFrame(MpaKey.REQUEST, false, false, false, false, 2, new byte[0]),
            new MpaFrame(MpaKey.REQUEST, true, false, false, true, 2, new byte[4])}) {
            MpaResponder.Outcome o = new MpaResponder(false).receive(ByteBuffer.wrap(req.toBytes()));
            assertThat(o).isInstanceOfSatisfying(MpaResponder.Outcome.Refused.class, refused -> {
                MpaFrame reply = MpaFrame.decode(ByteBuffer.wrap(refused.reply()), 0, refused.reply().length,
                        MpaKey.REPLY);
                assertThat(reply.reject()).isTrue();
                assertThat(reply.markers()).isFalse();
                assertThat(reply.revision()).isEqualTo(req.revision());
                assertThat(new String(reply.privateData(), StandardCharsets.US_ASCII)).isEqualTo(refused.reason());
            });
        }
    }

    @Test
    void somethingElseThanARequestIsAProtocolError() {
        assertThatThrownBy(() -> new MpaResponder(false).receive(ByteBuffer.wrap(MpaGoldenTest.SIW_REPLY)))
                .isInstanceOfSatisfying(IwarpProtocolException.class,
                        e -> assertThat(e.code()).isEqualTo(TerminateCode.MPA_INVALID_REQUEST_REPLY));
    }

    @Test
    void peerToPeerPicksWriteThenReadAsSiwDoes() {
        assertThat(rtrFor(true, true)).isEqualTo(Rtr.WRITE);
        assertThat(rtrFor(false, true)).isEqualTo(Rtr.READ);
        assertThat(rtrFor(false, false)).isEqualTo(Rtr.WRITE);
    }

    private static Rtr rtrFor(boolean write, boolean read) {
        MpaResponder r = new MpaResponder(false);
        requested(r, MpaFrame.enhanced(MpaKey.REQUEST, false, false, new MpaV2Params(2, 2, true, false, write, read),
                new byte[0]).toBytes());
        MpaResponder.Accepted a = r.accept(2, 2, new byte[0]);
        MpaV2Params p = MpaFrame.decode(ByteBuffer.wrap(a.reply()), 0, a.reply().length, MpaKey.REPLY).v2Params();
        assertThat(p.peerToPeer()).isTrue();
        assertThat(p.writeRtr()).isEqualTo(a.settings().rtr() == Rtr.WRITE);
        assertThat(p.readRtr()).isEqualTo(a.settings().rtr() == Rtr.READ);
        return a.settings().rtr();
    }

    @Test
    void initiatorAndResponderAgree() {
        byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
        MpaInitiator i = new MpaInitiator(true, new MpaV2Params(8, 4, true, false, false, true), hello);
        MpaResponder r = new MpaResponder(false);
        MpaResponder.Outcome.Requested req = requested(r, i.request());
        assertThat(req.request().ulpPrivateData()).isEqualTo(hello);
        MpaResponder.Accepted a = r.accept(4, 2, "world".getBytes(StandardCharsets.US_ASCII));
        ByteBuffer reply = ByteBuffer.wrap(a.reply());
        MpaInitiator.Verdict v = null;
        while (reply.hasRemaining()) {
            v = i.receive(reply.slice(reply.position(), 1));
            reply.position(reply.position() + 1);
        }
        assertThat(v).isInstanceOfSatisfying(MpaInitiator.Verdict.Accepted.class, acc -> {
            MpaSettings s = acc.settings();
            assertThat(s.crc()).isTrue().isEqualTo(a.settings().crc());
            assertThat(s.rtr()).isEqualTo(Rtr.READ).isEqualTo(a.settings().rtr());
            assertThat(s.ord()).isEqualTo(4);                     // our ORD 4 fits the responder's IRD 4
            assertThat(a.settings().ord()).isEqualTo(2);
            assertThat(s.ulpPrivateData()).asString(StandardCharsets.US_ASCII).isEqualTo("world");
        });
    }

    @Test
    void initiatorRefusesRepliesItCannotWorkWith() {
        MpaV2Params offer = new MpaV2Params(1, 1, true, false, true, false);
        assertThat(verdictOn(offer, new MpaFrame(MpaKey.REPLY, false, false, true, false, 1, new byte[0])))
                .isInstanceOf(MpaInitiator.Verdict.Rejected.class);
        assertThatThrownBy(() -> verdictOn(offer, new MpaFrame(MpaKey.REPLY, false, false, false, false, 1,
                new byte[0]))).isInstanceOf(IwarpProtocolException.class).hasMessageContaining("revision 2");
        assertThatThrownBy(() -> verdictOn(offer, MpaFrame.enhanced(MpaKey.REPLY, false, false,
                new MpaV2Params(1, 2, true, false, true, false), new byte[0])))
                .isInstanceOfSatisfying(IwarpProtocolException.class,
                        e -> assertThat(e.code()).isEqualTo(TerminateCode.MPA_INSUFFICIENT_IRD));
        assertThatThrownBy(() -> verdictOn(offer, MpaFrame.enhanced(MpaKey.REPLY, false, false,
                new MpaV2Params(1, 1, true, false, false, true), new byte[0])))
                .isInstanceOfSatisfying(IwarpProtocolException.class,
                        e -> assertThat(e.code()).isEqualTo(TerminateCode.MPA_NO_MATCHING_RTR));
    }

    private static MpaInitiator.Verdict verdictOn(MpaV2Params offer, MpaFrame reply) {
        MpaInitiator i = new MpaInitiator(false, offer, new byte[0]);
        return i.receive(ByteBuffer.wrap(reply.toBytes()));
    }
}
