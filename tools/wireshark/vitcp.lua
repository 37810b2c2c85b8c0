-- Wireshark dissector for VI/TCP profile 1 (vibridge), and for the same segments in seed-004 RDMA/TCP
-- frames. The wire format is the VI/TCP profile (VITCP-PROFILE sections 2 to 5, 8, 9) as the vitcp
-- module's codecs implement it (io.vibridge.vitcp.wire, io.vibridge.vitcp.rdmatcp); the checks below are
-- the codecs' (SegmentView.wrap, ConnectionHeader.validate, RdmaTcpFrame.check), in the same order, and
-- every expert message starts with the field name the codec's ProtocolException (or the FrameCheck) gives.
--
-- Load: tshark -X lua_script:tools/wireshark/vitcp.lua -r capture.pcap   (or copy this file into the
-- personal Lua plugins folder). Protocols "vitcp" (TCP port 7470) and "rdmatcp" (TCP port 7471); both
-- ports are preferences (vitcp.tcp_port, rdmatcp.tcp_port) and both protocols are offered in Decode As.
-- Tested with Wireshark 4.0 (Lua 5.2); see README.md beside this file.

-- Lua 5.2 (Wireshark 4.0, as tested) has bit32; failing that the BitOp module, or Lua 5.3's own operators
local bit = bit32 or bit or load([[return {
    band = function(a, b) return a & b end,
    bxor = function(a, b) return a ~ b end,
    rshift = function(a, n) return a >> n end,
}]])()

local vitcp = Proto("vitcp", "VI over TCP (profile 1)")
local rdmatcp = Proto("rdmatcp", "VI/TCP in seed-004 RDMA/TCP frames")

local HEADER = 24      -- segment header
local RDMA_HEADER = 16
local CE_MIN = 16      -- CE header with both discriminators and the security information empty
local MAX_DISCRIMINATOR = 64
local MIN_MTU = 32768
local TWO32 = 4294967296

-- VITCP-PROFILE section 2: code -> name, extra header after the segment header, may carry payload
-- (SegmentType.carriesPayload); min = the smallest Segment Length (SegmentType.minimumSegmentLength)
local TYPES = {
    [0] = { name = "Send", extra = "none", payload = true },
    [1] = { name = "RDMA Write", extra = "rdma", payload = true },
    [2] = { name = "RDMA Read Request", extra = "rdma", payload = false },
    [3] = { name = "RDMA Read Response", extra = "none", payload = true },
    [4] = { name = "NOP", extra = "none", payload = false },
    [5] = { name = "Connect Request", extra = "ce", payload = false },
    [6] = { name = "Connect Accept", extra = "ce", payload = false },
    [7] = { name = "Connect Reject", extra = "none", payload = false },
    [8] = { name = "Connect No Match", extra = "none", payload = false },
    [9] = { name = "Send Unordered", extra = "none", payload = true },
    [10] = { name = "RDMA Write Unordered", extra = "rdma", payload = true },
    [11] = { name = "RDMA Read Request Unordered", extra = "rdma", payload = false },
}
local type_names = {}
for code, t in pairs(TYPES) do
    type_names[code] = t.name
    t.min = HEADER + (t.extra == "rdma" and RDMA_HEADER or t.extra == "ce" and CE_MIN or 0)
end
for code = 12, 31 do
    type_names[code] = "Reserved"
end

local function is_send(code) return code == 0 or code == 9 end
local function is_write(code) return code == 1 or code == 10 end
local function is_unordered(code) return code >= 9 and code <= 11 end

local vi_error_types = { [0] = "No Error", [1] = "RDMA Memory Protection Error", [2] = "VI Descriptor Error" }
-- IsCode.describe
local is_codes = {
    [0] = "none", "receive queue empty", "receive descriptor too small", "invalid memory handle",
    "address outside the registered region", "access not enabled", "protection tag mismatch",
    "RDMA read window exceeded", "consumer rejected the connection", "unsupported version or attributes mismatch",
    "MTU below the 32 KiB minimum", "security information rejected", "no route / target unreachable",
    "target rejected the connection", "resources exhausted", "timeout", "remote transport error",
}
for code = 0x80, 0xFF do
    is_codes[code] = string.format("gateway detail code 0x%x", code)
end
local reliability_levels = {
    [0] = "Unreliable Delivery", [1] = "Reliable Delivery", [2] = "Reliable Reception", [3] = "invalid",
}
local reliability_short = { [0] = "UD", [1] = "RD", [2] = "RR", [3] = "reliability 3" }
local security_types = { [0] = "none", [1] = "HMAC-SHA256" }

-- ------------------------------------------------------------------ VI/TCP fields

local f = {
    version = ProtoField.uint8("vitcp.version", "Version", base.DEC),
    type = ProtoField.uint8("vitcp.type", "Type", base.DEC, type_names, 0xF8),
    flags = ProtoField.uint8("vitcp.flags", "Flags", base.HEX, nil, 0x07),
    flag_imm = ProtoField.bool("vitcp.flags.imm", "Immediate Data Valid", 8, nil, 0x01),
    flag_eom = ProtoField.bool("vitcp.flags.eom", "End of Message", 8, nil, 0x02),
    flag_txerr = ProtoField.bool("vitcp.flags.txerr", "Transmit Error", 8, nil, 0x04),
    length = ProtoField.uint16("vitcp.length", "Segment Length", base.DEC),
    data_offset = ProtoField.uint32("vitcp.data_offset", "Data Offset", base.DEC),
    immediate = ProtoField.uint32("vitcp.immediate", "Immediate Data", base.HEX),
    msg = ProtoField.uint32("vitcp.msg", "Message Number", base.DEC),
    msg_rel = ProtoField.int32("vitcp.msg_rel", "Message Number (relative)", base.DEC),
    ack = ProtoField.uint32("vitcp.ack", "Message ACK", base.DEC),
    ack_rel = ProtoField.int32("vitcp.ack_rel", "Message ACK (relative)", base.DEC),
    rx_posted = ProtoField.uint16("vitcp.rx_posted", "Rx Descriptors Posted (credits)", base.DEC),
    vi_error_type = ProtoField.uint8("vitcp.vi_error_type", "VI Error Type", base.DEC, vi_error_types),
    is_code = ProtoField.uint8("vitcp.is_code", "IS Error Code", base.DEC, is_codes),
    rdma = ProtoField.bytes("vitcp.rdma", "RDMA Header"),
    rdma_address = ProtoField.uint64("vitcp.rdma.address", "RDMA Address", base.HEX),
    rdma_handle = ProtoField.uint32("vitcp.rdma.handle", "Registered Memory Handle", base.HEX),
    rdma_length = ProtoField.uint32("vitcp.rdma.length", "RDMA Length", base.DEC),
    ce = ProtoField.bytes("vitcp.ce", "Connection Establishment (CE) Header"),
    ce_attributes = ProtoField.uint16("vitcp.ce.attributes", "Attributes", base.HEX),
    ce_reliability = ProtoField.uint16("vitcp.ce.reliability", "Reliability Level", base.DEC, reliability_levels,
        0x0003),
    ce_rdma_write = ProtoField.bool("vitcp.ce.rdma_write", "RDMA Write Enable", 16, nil, 0x0004),
    ce_rdma_read = ProtoField.bool("vitcp.ce.rdma_read", "RDMA Read Enable", 16, nil, 0x0008),
    ce_flow_control = ProtoField.bool("vitcp.ce.flow_control", "Descriptor Flow Control", 16, nil, 0x0010),
    ce_peer_to_peer = ProtoField.bool("vitcp.ce.peer_to_peer", "Peer-to-peer", 16, nil, 0x0020),
    ce_unordered = ProtoField.bool("vitcp.ce.unordered", "Unordered operations understood", 16, nil, 0x0040),
    ce_reserved = ProtoField.uint16("vitcp.ce.reserved", "Reserved", base.HEX, nil, 0xFF80),
    ce_calling_length = ProtoField.uint16("vitcp.ce.calling_length", "Calling Discriminator Length", base.DEC),
    ce_mtu = ProtoField.uint32("vitcp.ce.mtu", "MTU Size", base.DEC),
    ce_calling = ProtoField.bytes("vitcp.ce.calling", "Calling Discriminator"),
    ce_read_window = ProtoField.uint16("vitcp.ce.read_window", "RDMA Read Window", base.DEC),
    ce_called_length = ProtoField.uint16("vitcp.ce.called_length", "Called Discriminator Length", base.DEC),
    ce_called = ProtoField.bytes("vitcp.ce.called", "Called Discriminator"),
    ce_security_type = ProtoField.uint16("vitcp.ce.security_type", "Security Type", base.DEC, security_types),
    ce_security_length = ProtoField.uint16("vitcp.ce.security_length", "Security Length", base.DEC),
    ce_security_info = ProtoField.bytes("vitcp.ce.security_info", "Security Information"),
    ce_timestamp = ProtoField.absolute_time("vitcp.ce.timestamp", "Timestamp", base.UTC),
    ce_hmac = ProtoField.bytes("vitcp.ce.hmac", "HMAC-SHA256"),
    payload = ProtoField.bytes("vitcp.payload", "Payload"),
    payload_length = ProtoField.uint32("vitcp.payload_length", "Payload Length", base.DEC),
}
local field_list = {}
for _, v in pairs(f) do
    field_list[#field_list + 1] = v
end
vitcp.fields = field_list

local e = {
    malformed = ProtoExpert.new("vitcp.malformed", "Malformed VI/TCP segment", expert.group.MALFORMED,
        expert.severity.ERROR),
    transmit_error = ProtoExpert.new("vitcp.transmit_error", "Transmit Error: the payload is padding",
        expert.group.PROTOCOL, expert.severity.WARN),
    remote_error = ProtoExpert.new("vitcp.remote_error", "Remote Error Code reported", expert.group.RESPONSE_CODE,
        expert.severity.WARN),
    refused = ProtoExpert.new("vitcp.refused", "Connection refused", expert.group.RESPONSE_CODE,
        expert.severity.WARN),
    nonconforming = ProtoExpert.new("vitcp.nonconforming", "CE header a passive side rejects",
        expert.group.PROTOCOL, expert.severity.WARN),
}
vitcp.experts = { e.malformed, e.transmit_error, e.remote_error, e.refused, e.nonconforming }

vitcp.prefs.tcp_port = Pref.uint("TCP port", 7470, "TCP port of VI/TCP (VITCP-PROFILE: default 7470)")

-- ------------------------------------------------------------------ per-connection state

-- Initial Message Numbers and reliability per TCP stream and sender, learnt from Connect Request and
-- Accept, to show message numbers relative to the IMN (as TCP shows relative sequence numbers).
local f_tcp_stream = Field.new("tcp.stream")
local imns, levels = {}, {}

function vitcp.init()
    imns, levels = {}, {}
end

local function stream_id()
    local s = f_tcp_stream()
    return s and tostring(s.value) or "?"
end

local function endpoint(addr, port)
    return tostring(addr) .. ":" .. tostring(port)
end

local function relative(value, base_value)
    local r = (value - base_value) % TWO32
    return r >= TWO32 / 2 and r - TWO32 or r
end

-- The Info column: one line per packet, its segments separated by ", ". TCP calls a dissector more than
-- once for a packet that completes a reassembled segment and holds more; between calls it fences the
-- column, so the first segment of each call clears only what follows the fence.
local first_in_call
local function info(pinfo, text)
    if first_in_call then
        first_in_call = false
        pinfo.cols.info:clear()
    end
    if tostring(pinfo.cols.info) == "" then
        pinfo.cols.info:set(text)
    else
        pinfo.cols.info:append(", " .. text)
    end
end

-- ------------------------------------------------------------------ helpers

local function printable(range)
    if range:len() == 0 then
        return '""'
    end
    local s = range:raw()
    if s:find("^[\32-\126]+$") then
        return '"' .. s .. '"'
    end
    return "0x" .. range:bytes():tohex()
end

local function pad4(n)
    return n + (-n % 4)
end

-- A zero-padded variable field of the CE header (ConnectionHeader.validate): it, its padding and the
-- `after` bytes that follow must end by limit, and its padding must be zero. Returns the offset after the
-- padding and the tree item, or nil and the problem.
local function padded(tvb, tree, field, name, p, length, after, limit)
    if p + pad4(length) + after > limit then
        return nil, name .. ": runs past the end of the segment"
    end
    local item = tree:add(field, tvb(p, length))
    if length == 0 then
        item:set_text(name .. ": (empty)")
    elseif field ~= f.ce_security_info then
        item:append_text(" (" .. printable(tvb(p, length)) .. ")")
    end
    for i = p + length, p + pad4(length) - 1 do
        if tvb(i, 1):uint() ~= 0 then
            return nil, name .. " padding: non-zero padding byte"
        end
    end
    return p + pad4(length), item
end

-- ------------------------------------------------------------------ CE header (VITCP-PROFILE section 5)

-- Dissects the CE header in tvb[off, limit); returns its length or nil and the first violation
-- (ConnectionHeader.validate's field names), plus a summary for the Info column.
local function dissect_ce(tvb, tree, off, limit)
    local ce = tree:add(f.ce, tvb(off, limit - off))
    ce:set_text("Connection Establishment (CE) Header")
    local attrs = tvb(off, 2):uint()
    local at = ce:add(f.ce_attributes, tvb(off, 2))
    at:add(f.ce_reliability, tvb(off, 2))
    at:add(f.ce_rdma_write, tvb(off, 2))
    at:add(f.ce_rdma_read, tvb(off, 2))
    at:add(f.ce_flow_control, tvb(off, 2))
    at:add(f.ce_peer_to_peer, tvb(off, 2))
    at:add(f.ce_unordered, tvb(off, 2))
    at:add(f.ce_reserved, tvb(off, 2))
    local reliability = attrs % 4
    local calling_length = tvb(off + 2, 2):uint()
    ce:add(f.ce_calling_length, tvb(off + 2, 2))
    local mtu = tvb(off + 4, 4):uint()
    local mtu_item = ce:add(f.ce_mtu, tvb(off + 4, 4))
    if calling_length > MAX_DISCRIMINATOR then
        return nil, "Calling Discriminator Length: length " .. calling_length .. " exceeds 64"
    end
    local p, problem = padded(tvb, ce, f.ce_calling, "Calling Discriminator", off + 8, calling_length, 4, limit)
    if not p then
        return nil, problem
    end
    local calling = tvb(off + 8, calling_length)
    local window = tvb(p, 2):uint()
    ce:add(f.ce_read_window, tvb(p, 2))
    local called_length = tvb(p + 2, 2):uint()
    ce:add(f.ce_called_length, tvb(p + 2, 2))
    if called_length > MAX_DISCRIMINATOR then
        return nil, "Called Discriminator Length: length " .. called_length .. " exceeds 64"
    end
    local called_at = p + 4
    p, problem = padded(tvb, ce, f.ce_called, "Called Discriminator", called_at, called_length, 4, limit)
    if not p then
        return nil, problem
    end
    local called = tvb(called_at, called_length)
    local security_type = tvb(p, 2):uint()
    ce:add(f.ce_security_type, tvb(p, 2))
    local security_length = tvb(p + 2, 2):uint()
    ce:add(f.ce_security_length, tvb(p + 2, 2))
    local si
    p, si = padded(tvb, ce, f.ce_security_info, "Security Information", p + 4, security_length, 0, limit)
    if not p then
        return nil, si
    end
    if security_type == 1 and security_length == 40 then
        local at_info = p - 40
        local ms = tvb(at_info, 4):uint() * TWO32 + tvb(at_info + 4, 4):uint()
        si:add(f.ce_timestamp, tvb(at_info, 8), NSTime.new(math.floor(ms / 1000), (ms % 1000) * 1000000))
        si:add(f.ce_hmac, tvb(at_info + 8, 32))
    end
    ce:set_len(p - off)

    -- Well framed; what a passive side answers with Connect Reject (VITCP-PROFILE sections 5, 9.9)
    if bit.band(attrs, 0xFF80) ~= 0 or reliability == 3 or (reliability == 0 and bit.band(attrs, 0x0008) ~= 0) then
        at:add_proto_expert_info(e.nonconforming,
            "Attributes: reserved bits, reliability 3 or RDMA Read at Unreliable Delivery (Connect Reject IS 9)")
    end
    if mtu < MIN_MTU then
        mtu_item:add_proto_expert_info(e.nonconforming, "MTU Size: below the 32 KiB minimum (Connect Reject IS 10)")
    end
    if not ((security_type == 0 and security_length == 0) or (security_type == 1 and security_length == 40)) then
        ce:add_proto_expert_info(e.nonconforming, "Security Type " .. security_type .. " with Security Length "
            .. security_length .. ": a side holding a key refuses it (IS 11)")
    end

    local flags = {}
    if bit.band(attrs, 0x0004) ~= 0 then flags[#flags + 1] = "W" end
    if bit.band(attrs, 0x0008) ~= 0 then flags[#flags + 1] = "R" end
    if bit.band(attrs, 0x0010) ~= 0 then flags[#flags + 1] = "FC" end
    if bit.band(attrs, 0x0020) ~= 0 then flags[#flags + 1] = "P2P" end
    if bit.band(attrs, 0x0040) ~= 0 then flags[#flags + 1] = "U" end
    local summary = string.format("%s%s calling=%s called=%s MTU=%d window=%d%s", reliability_short[reliability],
        #flags > 0 and " " .. table.concat(flags, ",") or "", printable(calling), printable(called), mtu, window,
        security_type == 1 and " signed" or "")
    return p - off, nil, summary, reliability
end

-- ------------------------------------------------------------------ VI/TCP segment (VITCP-PROFILE 2-4, 9)

-- The length of the VI/TCP segment at offset, or nil when its first 4 bytes cannot give one
-- (SegmentView.frameLength: bad Version, reserved Type, or a length below the type's minimum).
local function segment_length(tvb, offset)
    local t = TYPES[bit.rshift(tvb(offset + 1, 1):uint(), 3)]
    local length = tvb(offset + 2, 2):uint()
    if tvb(offset, 1):uint() ~= 1 or t == nil or length < t.min then
        return nil
    end
    return length
end

-- Dissects one VI/TCP segment filling tvb; returns the tree item. Checks follow SegmentView.wrap.
local function dissect_segment(tvb, pinfo, tree)
    local available = tvb:len()
    local seg = tree:add(vitcp, tvb())
    local function malformed(item, text)
        item:add_proto_expert_info(e.malformed, text)
        seg:append_text(" [Malformed: " .. text .. "]")
        info(pinfo, "Malformed VI/TCP segment (" .. text .. ")")
        return seg
    end
    if available < HEADER then
        seg:add(f.payload, tvb())
        return malformed(seg, "Segment Header: truncated: " .. available .. " bytes available, 24 needed")
    end
    local version = tvb(0, 1):uint()
    local code = bit.rshift(tvb(1, 1):uint(), 3)
    local flags = tvb(1, 1):uint() % 8
    local length = tvb(2, 2):uint()
    local data_offset = tvb(4, 4):uint()
    local immediate = tvb(8, 4):uint()
    local msg = tvb(12, 4):uint()
    local ack = tvb(16, 4):uint()
    local rx = tvb(20, 2):uint()
    local vi_error = tvb(22, 1):uint()
    local is_code = tvb(23, 1):uint()
    local t = TYPES[code]

    local version_item = seg:add(f.version, tvb(0, 1))
    local type_item = seg:add(f.type, tvb(1, 1))
    local flags_item = seg:add(f.flags, tvb(1, 1))
    flags_item:add(f.flag_imm, tvb(1, 1))
    flags_item:add(f.flag_eom, tvb(1, 1))
    flags_item:add(f.flag_txerr, tvb(1, 1))
    local length_item = seg:add(f.length, tvb(2, 2))
    local offset_item = seg:add(f.data_offset, tvb(4, 4))
    seg:add(f.immediate, tvb(8, 4))
    local msg_item = seg:add(f.msg, tvb(12, 4))
    local ack_item = seg:add(f.ack, tvb(16, 4))
    seg:add(f.rx_posted, tvb(20, 2))
    local vi_error_item = seg:add(f.vi_error_type, tvb(22, 1))
    local is_item = seg:add(f.is_code, tvb(23, 1))
    seg:set_text(string.format("VI/TCP %s, Msg: %d, Len: %d", t and t.name or "reserved type " .. code, msg, length))

    if version ~= 1 then
        return malformed(version_item, "Version: unsupported version " .. version)
    end
    if t == nil then
        return malformed(type_item, "Type: reserved segment type " .. code)
    end
    if length < t.min then
        return malformed(length_item, "Segment Length: segment length " .. length .. " below the minimum " .. t.min
            .. " of " .. t.name)
    end
    if length > available then
        return malformed(length_item, "Segment Length: segment length " .. length .. " exceeds the " .. available
            .. " bytes available")
    end
    local eom = bit.band(flags, 2) ~= 0
    if bit.band(flags, 1) ~= 0 then
        if not (is_send(code) or is_write(code)) then
            return malformed(flags_item, "Flags: Immediate Data Valid set on a " .. t.name .. " segment")
        end
        if not eom then
            return malformed(flags_item, "Flags: Immediate Data Valid set without End of Message")
        end
    end
    if bit.band(flags, 4) ~= 0 and not t.payload then
        return malformed(flags_item, "Flags: Transmit Error set on a " .. t.name .. " segment")
    end

    local rdma_address, rdma_handle, rdma_length, rdma_length_item
    if t.extra == "rdma" then
        local r = seg:add(f.rdma, tvb(HEADER, RDMA_HEADER))
        r:set_text("RDMA Header")
        r:add(f.rdma_address, tvb(HEADER, 8))
        r:add(f.rdma_handle, tvb(HEADER + 8, 4))
        rdma_length_item = r:add(f.rdma_length, tvb(HEADER + 12, 4))
        rdma_address = tvb(HEADER, 8):uint64()
        rdma_handle = tvb(HEADER + 8, 4):uint()
        rdma_length = tvb(HEADER + 12, 4):uint()
    end

    local ce_summary, level
    if not t.payload then
        if not eom then
            return malformed(flags_item, "Flags: " .. t.name .. " without End of Message")
        end
        if data_offset ~= 0 then
            return malformed(offset_item, "Data Offset: " .. t.name
                .. " is a single segment, Data Offset must be 0, got " .. data_offset)
        end
        if t.extra == "ce" then
            local ce_length, problem
            ce_length, problem, ce_summary, level = dissect_ce(tvb, seg, HEADER, length)
            if problem then
                return malformed(seg, problem)
            end
            if HEADER + ce_length ~= length then
                return malformed(length_item, "Segment Length: segment length " .. length
                    .. " but the CE header ends after " .. (HEADER + ce_length) .. " bytes")
            end
        elseif length ~= t.min then
            return malformed(length_item, "Segment Length: " .. t.name .. " carries no payload: segment length must be "
                .. t.min .. ", got " .. length)
        end
    elseif data_offset + (length - t.min) >= TWO32 then
        return malformed(offset_item, "Data Offset: Data Offset " .. data_offset .. " + payload runs past 2^32")
    elseif t.extra == "rdma" and data_offset + (length - t.min) > rdma_length then
        return malformed(rdma_length_item, "RDMA Length: Data Offset " .. data_offset .. " + payload "
            .. (length - t.min) .. " exceeds RDMA Length " .. rdma_length)
    end

    local payload_length = length - t.min
    if t.payload then
        seg:add(f.payload_length, payload_length):set_generated()
        if payload_length > 0 then
            seg:add(f.payload, tvb(t.min, payload_length))
        end
    end

    -- Message numbers relative to the IMNs (VITCP-PROFILE section 3); a Read Response carries the number
    -- of the peer's request, a Message ACK names the peer's messages.
    local stream = stream_id()
    local me = stream .. "/" .. endpoint(pinfo.src, pinfo.src_port)
    local peer = stream .. "/" .. endpoint(pinfo.dst, pinfo.dst_port)
    if t.extra == "ce" then
        imns[me], levels[stream] = msg, level
        msg_item:append_text(" (Initial Message Number)")
    end
    local own_base = code == 3 and imns[peer] or imns[me]
    local rel
    if t.extra ~= "ce" and code ~= 7 and code ~= 8 and own_base then
        rel = relative(msg, own_base)
        msg_item:add(f.msg_rel, rel):set_generated()
    end
    if code ~= 5 and levels[stream] ~= nil and levels[stream] ~= 2 then
        ack_item:append_text(" (ignored below Reliable Reception)")
    elseif imns[peer] and code ~= 5 then
        ack_item:add(f.ack_rel, relative(ack, imns[peer])):set_generated()
    end

    if bit.band(flags, 4) ~= 0 then
        flags_item:add_proto_expert_info(e.transmit_error)
    end
    if code == 7 then
        is_item:add_proto_expert_info(e.refused, "Connect Reject: IS " .. is_code .. " (" .. (is_codes[is_code]
            or "unassigned") .. ")")
    elseif code == 8 then
        type_item:add_proto_expert_info(e.refused, "Connect No Match: no listener for the called discriminator")
    elseif vi_error ~= 0 then
        vi_error_item:add_proto_expert_info(e.remote_error, string.format("Remote Error Code: %s, IS %d (%s)",
            vi_error_types[vi_error] or "undefined VI Error Type " .. vi_error, is_code,
            is_codes[is_code] or "unassigned"))
    elseif is_code ~= 0 then
        is_item:add_proto_expert_info(e.remote_error, "IS Error Code " .. is_code
            .. " without a VI Error Type (travels only with one, or in a Connect Reject)")
    end

    -- Info column
    local text
    local flag_text = {}
    if eom then flag_text[#flag_text + 1] = "EOM" end
    if bit.band(flags, 1) ~= 0 then flag_text[#flag_text + 1] = string.format("IMM=0x%08x", immediate) end
    if bit.band(flags, 4) ~= 0 then flag_text[#flag_text + 1] = "TXERR" end
    local msg_text = rel and tostring(rel) or tostring(msg)
    if t.extra == "ce" then
        text = string.format("%s IMN=%d credits=%d %s", t.name, msg, rx, ce_summary)
    elseif code == 7 then
        text = string.format("Connect Reject IS %d (%s)", is_code, is_codes[is_code] or "unassigned")
    elseif code == 8 then
        text = "Connect No Match"
    else
        text = string.format("%s msg=%s", t.name, msg_text)
        if t.payload then
            text = text .. string.format(" off=%d len=%d", data_offset, payload_length)
        end
        if t.extra == "rdma" then
            text = text .. string.format(" addr=0x%s handle=0x%08x rlen=%d", rdma_address:tohex(), rdma_handle,
                rdma_length)
        end
        if #flag_text > 0 then
            text = text .. " " .. table.concat(flag_text, " ")
        end
        text = text .. " credits=" .. rx
        if vi_error ~= 0 then
            text = text .. string.format(" error=%d/IS %d", vi_error, is_code)
        end
    end
    info(pinfo, text)
    seg:set_text(string.format("VI/TCP %s, Msg: %s, Len: %d", t.name, msg_text, length))
    return seg
end

local function vitcp_pdu_length(tvb, pinfo, offset)
    -- a segment whose length cannot be known ends the stream (VITCP-PROFILE 9.8: the receiver closes
    -- TCP): the rest of the data is shown as that one malformed segment
    return segment_length(tvb, offset) or (tvb:len() - offset)
end

local function vitcp_pdu(tvb, pinfo, tree)
    pinfo.cols.protocol:set("VI/TCP")
    dissect_segment(tvb, pinfo, tree)
    return tvb:len()
end

function vitcp.dissector(tvb, pinfo, tree)
    first_in_call = true
    return dissect_tcp_pdus(tvb, tree, 4, vitcp_pdu_length, vitcp_pdu)
end

-- ------------------------------------------------------------------ seed-004 RDMA/TCP frames (section 8)

local SHORT_HEADER, LONG_HEADER = 24, 32
local frame_types = { [0] = "Send", [1] = "RDMA Write", [2] = "RDMA Read Request", [3] = "RDMA Read Response" }
local rf = {
    version = ProtoField.uint8("rdmatcp.version", "Version", base.DEC),
    flags = ProtoField.uint8("rdmatcp.flags", "Flags", base.HEX),
    begin = ProtoField.bool("rdmatcp.flags.b", "B (first segment of the message)", 8, nil, 0x08),
    ["end"] = ProtoField.bool("rdmatcp.flags.e", "E (last segment of the message)", 8, nil, 0x04),
    type = ProtoField.uint8("rdmatcp.type", "Type", base.DEC, frame_types, 0x03),
    length = ProtoField.uint16("rdmatcp.length", "Segment Length", base.DEC),
    connection_id = ProtoField.uint64("rdmatcp.connection_id", "Connection ID", base.HEX),
    msg = ProtoField.uint32("rdmatcp.msg", "Message Number", base.DEC),
    order = ProtoField.uint16("rdmatcp.order", "Order", base.HEX),
    clen = ProtoField.uint8("rdmatcp.clen", "CLEN (control data words)", base.DEC),
    data_offset = ProtoField.uint32("rdmatcp.data_offset", "Data Offset", base.DEC),
    buffer_id = ProtoField.uint32("rdmatcp.buffer_id", "RDMA Buffer ID", base.HEX),
    buffer_offset = ProtoField.uint32("rdmatcp.buffer_offset", "RDMA Buffer Offset", base.DEC),
    rdma_length = ProtoField.uint32("rdmatcp.rdma_length", "RDMA Length", base.DEC),
    padding = ProtoField.bytes("rdmatcp.padding", "Padding"),
    crc = ProtoField.uint32("rdmatcp.crc", "CRC-32", base.HEX),
    crc_status = ProtoField.uint8("rdmatcp.crc.status", "CRC-32 status", base.DEC, { [0] = "Bad", [1] = "Good" }),
}
local rfield_list = {}
for _, v in pairs(rf) do
    rfield_list[#rfield_list + 1] = v
end
rdmatcp.fields = rfield_list
local re = {
    malformed = ProtoExpert.new("rdmatcp.malformed", "Malformed RDMA/TCP frame", expert.group.MALFORMED,
        expert.severity.ERROR),
    bad_crc = ProtoExpert.new("rdmatcp.bad_crc", "Bad CRC-32", expert.group.CHECKSUM, expert.severity.ERROR),
    connection_id = ProtoExpert.new("rdmatcp.connection_id", "Unknown Connection ID", expert.group.PROTOCOL,
        expert.severity.ERROR),
    mismatch = ProtoExpert.new("rdmatcp.mismatch", "Frame header disagrees with its VI/TCP segment",
        expert.group.PROTOCOL, expert.severity.ERROR),
}
rdmatcp.experts = { re.malformed, re.bad_crc, re.connection_id, re.mismatch }
rdmatcp.prefs.tcp_port = Pref.uint("TCP port", 7471, "TCP port of VI/TCP in RDMA/TCP frames (default 7471)")
rdmatcp.prefs.check_crc = Pref.bool("Verify CRC-32", true, "Recompute each frame's CRC-32 (RdmaTcpCrc)")

-- RdmaTcpCrc: the reflected Ethernet CRC-32 algorithm with the generator 0xDB710641 (reflected 0x82608EDB)
local crc_table = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if c % 2 == 1 then
            c = bit.bxor(bit.rshift(c, 1), 0x82608EDB)
        else
            c = bit.rshift(c, 1)
        end
    end
    crc_table[i] = c
end

local function crc32(tvb, offset, length)
    local s = tvb:raw(offset, length)
    local c = 0xFFFFFFFF
    local band, bxor, rshift, byte = bit.band, bit.bxor, bit.rshift, string.byte
    for i = 1, #s do
        c = bxor(crc_table[band(bxor(c, byte(s, i)), 0xFF)], rshift(c, 8))
    end
    return bxor(c, 0xFFFFFFFF)
end

local connection_ids = {}

function rdmatcp.init()
    connection_ids = {}
end

local function frame_header_length(tvb, offset)
    local type = tvb(offset + 1, 1):uint() % 4
    return (type == 1 or type == 2) and LONG_HEADER or SHORT_HEADER
end

local function rdmatcp_pdu_length(tvb, pinfo, offset)
    local length = tvb(offset + 2, 2):uint()
    if tvb(offset, 1):uint() ~= 1 or length < frame_header_length(tvb, offset) + HEADER then
        return tvb:len() - offset -- FrameCheck VERSION or LENGTH: the stream ends here
    end
    return pad4(length) + 4
end

-- Checks and dissects one frame filling tvb (RdmaTcpFrame.check), then its VI/TCP segment.
local function rdmatcp_pdu(tvb, pinfo, tree)
    pinfo.cols.protocol:set("RDMA/TCP")
    local frame = tree:add(rdmatcp, tvb())
    -- FrameCheck failures: the receiver closes TCP (VITCP-PROFILE 9.8); shown, and the segment still decoded
    -- where the frame's lengths allow
    local problems_seen = {}
    local function problem(expert_info, item, text)
        item:add_proto_expert_info(expert_info, text)
        frame:append_text(" [" .. text .. "]")
        problems_seen[#problems_seen + 1] = text
    end
    local function malformed(expert_info, item, text)
        problem(expert_info, item, text)
        info(pinfo, "RDMA/TCP frame: " .. text)
        return tvb:len()
    end
    local version_item = frame:add(rf.version, tvb(0, 1))
    local flags_item = frame:add(rf.flags, tvb(1, 1))
    flags_item:add(rf.begin, tvb(1, 1))
    flags_item:add(rf["end"], tvb(1, 1))
    flags_item:add(rf.type, tvb(1, 1))
    local length_item = frame:add(rf.length, tvb(2, 2))
    if tvb:len() < 20 then
        return malformed(re.malformed, frame, "LENGTH: shorter than the frame header")
    end
    local type = tvb(1, 1):uint() % 4
    local begin, fin = bit.band(tvb(1, 1):uint(), 8) ~= 0, bit.band(tvb(1, 1):uint(), 4) ~= 0
    local length = tvb(2, 2):uint()
    local id_item = frame:add(rf.connection_id, tvb(4, 8))
    frame:add(rf.msg, tvb(12, 4))
    frame:add(rf.order, tvb(16, 2)):append_text(tvb(16, 2):uint() == 0 and " (ordered)" or
        tvb(16, 2):uint() == 0xFFFF and " (unordered)" or "")
    frame:add(rf.clen, tvb(19, 1))
    local hdr = (type == 1 or type == 2) and LONG_HEADER or SHORT_HEADER
    if tvb(0, 1):uint() ~= 1 then
        return malformed(re.malformed, version_item, "VERSION: frame version is not 1")
    end
    local control = tvb(19, 1):uint() * 4
    if length < hdr + HEADER or control < HEADER or hdr + control > length or tvb:len() < pad4(length) + 4 then
        return malformed(re.malformed, length_item,
            "LENGTH: segment length or CLEN too small for the header and the VI/TCP header")
    end
    if hdr == LONG_HEADER then
        frame:add(rf.buffer_id, tvb(20, 4))
        frame:add(rf.buffer_offset, tvb(24, 4))
        frame:add(rf.rdma_length, tvb(28, 4))
    else
        frame:add(rf.data_offset, tvb(20, 4))
    end
    local covered = pad4(length)
    local crc_item = frame:add(rf.crc, tvb(covered, 4))
    local crc_ok = true
    if rdmatcp.prefs.check_crc then
        local computed = crc32(tvb, 0, covered)
        crc_ok = computed == tvb(covered, 4):uint()
        crc_item:add(rf.crc_status, crc_ok and 1 or 0):set_generated()
        if not crc_ok then
            problem(re.bad_crc, crc_item, string.format("CRC: CRC-32 mismatch, should be 0x%08x", computed))
        end
    end
    if covered > length then
        frame:add(rf.padding, tvb(length, covered - length))
    end
    -- Connection ID: chosen by the connecting side, the same in both directions (seed 004)
    local stream = stream_id()
    local id = tvb(4, 8):uint64():tohex()
    if connection_ids[stream] == nil then
        connection_ids[stream] = id
    elseif connection_ids[stream] ~= id then
        problem(re.connection_id, id_item, "CONNECTION_ID: unknown connection ID 0x" .. id .. " (expected 0x"
            .. connection_ids[stream] .. ")")
    end

    -- The VI/TCP segment: control data and payload, contiguous (VITCP-PROFILE 9.11)
    local segment = tvb(hdr, length - hdr):tvb()
    dissect_segment(segment, pinfo, tree)

    -- RdmaTcpFrame.agrees: the frame header says what its segment says
    local code = bit.rshift(segment(1, 1):uint(), 3)
    local t = TYPES[code]
    if segment(0, 1):uint() == 1 and t ~= nil then
        local payload = length - hdr - control
        local ordered = (code == 9 or code == 10 or code == 11) and code - 9 or code
        local carried = (ordered == 1 or ordered == 2 or ordered == 3) and ordered or 0
        local seg_offset = segment(4, 4):uint()
        local problems = {}
        local control_only = code >= 5 and code <= 8 -- connection segments travel whole as control data
        if (control_only and payload ~= 0) or (not control_only and control ~= t.min) then
            problems[#problems + 1] = "CLEN"
        end
        if segment(2, 2):uint() ~= control + payload then problems[#problems + 1] = "Segment Length" end
        if type ~= carried then problems[#problems + 1] = "Type" end
        if tvb(16, 2):uint() ~= (is_unordered(code) and 0xFFFF or 0) then problems[#problems + 1] = "Order" end
        if tvb(12, 4):uint() ~= segment(12, 4):uint() then problems[#problems + 1] = "Message Number" end
        if begin ~= (seg_offset == 0) then problems[#problems + 1] = "B" end
        if fin ~= (bit.band(segment(1, 1):uint(), 2) ~= 0) then problems[#problems + 1] = "E" end
        if hdr == LONG_HEADER and segment:len() >= HEADER + RDMA_HEADER then -- else CLEN or Type is wrong
            if tvb(20, 4):uint() ~= segment(HEADER + 8, 4):uint() then problems[#problems + 1] = "RDMA Buffer ID" end
            if tvb(24, 4):uint() ~= seg_offset then problems[#problems + 1] = "RDMA Buffer Offset" end
            if tvb(28, 4):uint() ~= segment(HEADER + 12, 4):uint() then problems[#problems + 1] = "RDMA Length" end
        elseif hdr == SHORT_HEADER and tvb(20, 4):uint() ~= seg_offset then
            problems[#problems + 1] = "Data Offset"
        end
        if #problems > 0 then
            problem(re.mismatch, frame, "MISMATCH: frame header disagrees with the VI/TCP header in its control data ("
                .. table.concat(problems, ", ") .. ")")
        end
    end
    frame:set_text(string.format("RDMA/TCP frame %s, Connection ID 0x%s, Len: %d%s", frame_types[type], id, length,
        #problems_seen > 0 and " [" .. table.concat(problems_seen, "; ") .. "]" or ""))
    for _, text in ipairs(problems_seen) do
        info(pinfo, "RDMA/TCP frame: " .. text)
    end
    return tvb:len()
end

function rdmatcp.dissector(tvb, pinfo, tree)
    first_in_call = true
    return dissect_tcp_pdus(tvb, tree, 4, rdmatcp_pdu_length, rdmatcp_pdu)
end

-- ------------------------------------------------------------------ registration

local tcp_port = DissectorTable.get("tcp.port")
local registered = {}

local function register(proto)
    local port = proto.prefs.tcp_port
    if registered[proto] ~= port then
        if registered[proto] then
            tcp_port:remove(registered[proto], proto)
        end
        if port ~= 0 then
            tcp_port:add(port, proto)
        end
        registered[proto] = port
    end
end

function vitcp.prefs_changed()
    register(vitcp)
end

function rdmatcp.prefs_changed()
    register(rdmatcp)
end

register(vitcp)
register(rdmatcp)
tcp_port:add_for_decode_as(vitcp)
tcp_port:add_for_decode_as(rdmatcp)
