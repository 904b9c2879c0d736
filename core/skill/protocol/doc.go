// Package protocol is the Jibo skill protocol: the messages the runtime
// exchanges with every skill, on the robot or behind the hub (jibo.md §1.2,
// §2). Requests (LISTEN_LAUNCH, LISTEN_UPDATE, PROACTIVE_LAUNCH) carry the
// robot's context and the turn's result; responses (SKILL_ACTION,
// SKILL_REDIRECT, ERROR) carry a JCP action, a redirect or an error.
//
// It also has the hub link's messages (jibo.md §1.3, §1.4): HubRequest is
// what the robot sends the hub (LISTEN, CONTEXT, TRIGGER, CMD_RESULT,
// CLIENT_ASR, CLIENT_NLU), HubResponse what the hub sends back (SOS, EOS,
// ASR, NLU, LISTEN, SKILL_ACTION, SKILL_REDIRECT, PROACTIVE, COMMAND,
// ERROR). Four type names exist in both directions or in both the hub and
// the skill protocol with different data (LISTEN, SKILL_REDIRECT, ERROR;
// SKILL_ACTION has the same data everywhere), so a message is decoded by
// the decoder of the direction it travels: DecodeRequest and DecodeResponse
// between hub and skill, DecodeHubRequest and DecodeHubResponse on the
// hub link. ManifestSkillConfig is a skill's manifest (jibo.md §2.6) and
// DecodeManifest reads one.
//
// # Nothing a peer sends is lost
//
// Member names are the exact wire names. Every struct keeps the members it
// does not model in its Extra map and writes them back when encoded, so a
// message decoded and re-encoded carries everything it came with, including
// the top-level transID real robots send. Where the spec makes null
// meaningful (intent, entities, speaker, skill id, trace transition,
// action) a nil pointer, map or json.RawMessage encodes as null. Optional
// members encode only when set; an explicit null sent for one is kept in
// Extra and written back as null. Members that are arbitrary JSON (memo,
// session data, the JCP action, analytics properties, the dialog referent)
// are kept as json.RawMessage. Required members a peer left out are written
// with their zero value.
//
// Decoding is lenient about what it does not model and strict about what
// the runtime relies on: DecodeRequest and DecodeResponse check the limits
// (MaxMessageSize first, then nesting and counts), decode, and Validate.
// Errors are *FieldError values naming the JSON path, such as
// "data.result.nlu.rules[1]: want string"; limit errors wrap ErrLimit.
// DecodeHubRequest, DecodeHubResponse and DecodeManifest work the same way.
// DecodeEnvelope reads any hub message with its data left raw. EncodeJSON
// writes compact JSON without escaping the markup in ESML (json.Marshal
// works too, but writes < as \u003c) and, like EncodeCBOR, refuses to
// produce a message over the limits.
//
// Constructors (NewListenLaunch, NewSkillAction, NewRedirect, NewError, …)
// fill msgID with "mid-" and a random UUID and ts with the current time;
// WithTime, WithMsgID and WithTransID override them. A response built from
// a request echoes its transID.
//
// # Numbers
//
// JSON numbers in modelled members take their Go type: float64 for
// confidences, coordinates and timings (re-encoded in shortest form, so 1.0
// becomes 1), int64 or int for timestamps, node ids and birthdates (any
// integral number is accepted, so 1.7e12 reads as 1700000000000). Numbers
// inside entities are json.Number and keep their exact text.
//
// CBOR goes through the JSON form. A JSON number written without fraction
// or exponent is an integer and becomes a CBOR integer (a bignum beyond 64
// bits), so integers of any size are exact; any other number becomes a
// CBOR float in the shortest width that keeps its float64 value. Back in
// JSON, CBOR integers are written as integers and CBOR floats always with a
// fraction or exponent (1.0, 1e+21), so JSON→CBOR→JSON keeps every value
// and whether it was an integer, and deterministic CBOR survives
// CBOR→JSON→CBOR byte for byte.
// Floats that float64 cannot hold (1e400) cannot be encoded as CBOR.
package protocol
