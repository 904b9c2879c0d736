package hub

import "errors"

// Errors a turn over the hub link ends with; each is wrapped with what was
// being done. A RemoteSkill answers all but ErrClosed with the spoken
// "I can't reach the cloud right now".
var (
	// ErrUnavailable: the hub cannot be reached (the link is down, or a
	// connection could not be opened within the connect timeout).
	ErrUnavailable = errors.New("hub unreachable")
	// ErrLinkDown: the link dropped while the transaction was open.
	ErrLinkDown = errors.New("hub link dropped mid-turn")
	// ErrTimeout: the hub did not answer within the turn's timeouts.
	ErrTimeout = errors.New("hub did not answer in time")
	// ErrUnauthorized: the hub refused the robot's token (HTTP 401).
	ErrUnauthorized = errors.New("hub refused the robot's token (unauthorized)")
	// ErrProtocol: the hub broke the protocol in this transaction (a bad
	// frame, too many messages).
	ErrProtocol = errors.New("hub broke the protocol")
	// ErrClosed: the client is closed.
	ErrClosed = errors.New("hub client closed")
)

// unreachable reports whether err means the cloud could not be used, as
// opposed to the robot shutting down.
func unreachable(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrLinkDown) || errors.Is(err, ErrTimeout) ||
		errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrProtocol)
}
