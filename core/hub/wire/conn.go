package wire

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder/websocket"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Conn is one hub-link websocket with its encoding. Writes may come from
// any number of goroutines (the websocket library serialises whole
// messages); reads, and Ping's wait for its pong, need exactly one reader
// goroutine calling ReadRequest or ReadResponse.
type Conn struct {
	ws  *websocket.Conn
	enc Encoding
}

// NewConn wraps an accepted or dialled websocket speaking e and sets its
// read limit to MaxFrameSize, so a bigger frame closes it with 1009. A
// websocket from Accept, or dialled with GuardedClient, also closes with
// 1009 as soon as a frame header declares more, without waiting for the
// payload.
func NewConn(c *websocket.Conn, e Encoding) *Conn {
	c.SetReadLimit(MaxFrameSize)
	return &Conn{ws: c, enc: e}
}

// Encoding is the link's encoding.
func (c *Conn) Encoding() Encoding { return c.enc }

// Websocket is the underlying websocket, for what Conn does not wrap
// (CloseRead, NetConn).
func (c *Conn) Websocket() *websocket.Conn { return c.ws }

// WriteRequest encodes and sends one robot-to-hub message.
func (c *Conn) WriteRequest(ctx context.Context, r *protocol.HubRequest) error {
	t, b, err := EncodeRequest(c.enc, r)
	if err != nil {
		return err
	}
	if err := c.ws.Write(ctx, t, b); err != nil {
		return fmt.Errorf("send robot-to-hub %s: %w", r.Type, err)
	}
	return nil
}

// WriteResponse encodes and sends one hub-to-robot message.
func (c *Conn) WriteResponse(ctx context.Context, r *protocol.HubResponse) error {
	t, b, err := EncodeResponse(c.enc, r)
	if err != nil {
		return err
	}
	if err := c.ws.Write(ctx, t, b); err != nil {
		return fmt.Errorf("send hub-to-robot %s: %w", r.Type, err)
	}
	return nil
}

// ReadRequest reads and decodes the next robot-to-hub message. A bad frame
// is a *FrameError (Fatal when oversized: the link is then closed); audio
// on a JSON link is ErrAudio; either way the next call reads the next
// frame. Any other error means the link is gone.
func (c *Conn) ReadRequest(ctx context.Context) (*protocol.HubRequest, error) {
	t, b, err := c.read(ctx, dirRequest)
	if err != nil {
		return nil, err
	}
	return DecodeRequest(c.enc, t, b)
}

// ReadResponse reads and decodes the next hub-to-robot message, like
// ReadRequest.
func (c *Conn) ReadResponse(ctx context.Context) (*protocol.HubResponse, error) {
	t, b, err := c.read(ctx, dirResponse)
	if err != nil {
		return nil, err
	}
	return DecodeResponse(c.enc, t, b)
}

func (c *Conn) read(ctx context.Context, dir string) (websocket.MessageType, []byte, error) {
	t, b, err := c.ws.Read(ctx)
	var declared *DeclaredTooBigError
	switch {
	case errors.As(err, &declared):
		// Only the header has arrived: the peer hears why at once rather
		// than when its payload never comes.
		_ = c.ws.Close(websocket.StatusMessageTooBig, declared.reason())
		return 0, nil, &FrameError{Problem: FrameOversized, Encoding: c.enc, Direction: dir,
			Err: fmt.Errorf("%w: %w", protocol.ErrLimit, declared)}
	case errors.Is(err, websocket.ErrMessageTooBig):
		return 0, nil, &FrameError{Problem: FrameOversized, Encoding: c.enc, Direction: dir,
			Err: fmt.Errorf("%w: over %d bytes: %w", protocol.ErrLimit, MaxFrameSize, err)}
	case err != nil:
		return 0, nil, fmt.Errorf("read %s frame: %w", dir, err)
	}
	return t, b, nil
}

// Ping sends a websocket ping and waits for its pong, which arrives only
// while another goroutine is reading.
func (c *Conn) Ping(ctx context.Context) error {
	if err := c.ws.Ping(ctx); err != nil {
		return fmt.Errorf("ping hub link: %w", err)
	}
	return nil
}

// Close sends a close frame with code and reason and waits (bounded by
// the websocket library, 5 s) for the peer's.
func (c *Conn) Close(code websocket.StatusCode, reason string) error {
	return c.ws.Close(code, reason)
}

// CloseNow closes the connection without a close handshake.
func (c *Conn) CloseNow() error { return c.ws.CloseNow() }
