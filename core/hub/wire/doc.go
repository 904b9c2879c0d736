// Package wire is the hub link's framing: how the messages of
// core/skill/protocol (HubRequest, robot → hub; HubResponse, hub → robot;
// jibo.md §1.3, §1.4) travel over one websocket, and the catalog a hub
// advertises at GET /v1/skills.
//
// Two encodings exist, chosen by websocket subprotocol on the upgrade:
// SubprotocolJSON ("jibo.json.v1": text frames, one JSON message each, as
// real robots send) and SubprotocolCBOR ("jibo.cbor.v1": binary frames, one
// deterministic CBOR message each, protocol.EncodeCBOR). A client that
// offers no subprotocol — a real robot — speaks JSON. A hub offers
// AcceptSubprotocols (CBOR first, so a client offering both gets CBOR); a
// client offers Offer(its preferred encoding).
//
// Every frame is bounded by MaxFrameSize (the websocket read limit of every
// Conn, so an oversized frame closes the connection with 1009; on a link
// made by Accept or dialled with GuardedClient, as soon as a frame header
// declares more, without waiting for the payload) and decoded
// with the protocol package's limits and validation: nothing half-decoded
// comes back. A frame that cannot be decoded is a *FrameError saying what
// is wrong and where, with the hub error code to answer with and, when the
// frame still showed them, its transID and type. On a JSON link a binary
// frame is audio following a LISTEN (jibo.md §1.1); decoding reports
// ErrAudio for it, which a hub without audio ASR answers with ERROR code
// ASR.
package wire
