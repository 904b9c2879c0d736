package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/coder/websocket"
)

// The websocket library enforces its read limit only on bytes it has read,
// so a frame header declaring 2^62 bytes followed by a trickle of payload
// would hold the reader until the link's idle timer. The guard below reads
// the framing (RFC 6455 §5.2) of the bytes on their way to the library and
// stops the stream at the first header that declares more than the limit,
// before any of its payload is awaited.

// DeclaredTooBigError is a frame header declaring a message longer than
// the link's limit. It wraps websocket.ErrMessageTooBig; Conn answers it
// by closing the link with 1009 (websocket.StatusMessageTooBig).
type DeclaredTooBigError struct {
	// Declared is the message length the headers declared so far, in
	// bytes (for a fragmented message, the sum over its frames).
	Declared uint64
	// Limit is the most a message may declare.
	Limit int64
}

// Error says what was declared and what is allowed.
func (e *DeclaredTooBigError) Error() string {
	return fmt.Sprintf("websocket frame header declares a %d-byte message, limit %d", e.Declared, e.Limit)
}

// Unwrap returns websocket.ErrMessageTooBig.
func (e *DeclaredTooBigError) Unwrap() error { return websocket.ErrMessageTooBig }

// reason is the close frame's reason: short, as close reasons must be
// at most 123 bytes.
func (e *DeclaredTooBigError) reason() string {
	return fmt.Sprintf("message over %d bytes", e.Limit)
}

// frameGuard passes a websocket byte stream through unchanged while
// following its frame headers, and ends it with a *DeclaredTooBigError at
// the first header whose data message would exceed limit. Bytes before
// that header are delivered first. Control frames are left to the
// websocket library, which refuses any over 125 bytes.
type frameGuard struct {
	r     io.Reader
	limit int64

	mu      sync.Mutex
	hdr     [14]byte // the header being read
	hn      int      // bytes of it read so far
	payload uint64   // payload bytes of the current frame still to pass
	message uint64   // bytes declared so far by the current data message
	err     error    // set once the limit is exceeded; every later read returns it
}

func newFrameGuard(r io.Reader, limit int64) *frameGuard {
	return &frameGuard{r: r, limit: limit}
}

// Read reads from the underlying stream and scans what it got.
func (g *frameGuard) Read(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if cut := g.scan(p[:n]); cut >= 0 {
		if cut > 0 {
			return cut, nil // the error comes with the next read
		}
		return 0, g.err
	}
	return n, err
}

// scan follows the framing through b. It returns the offset in b at which
// an over-limit header starts (0 when it started in an earlier read), or
// -1 when b holds none.
func (g *frameGuard) scan(b []byte) int {
	start := 0 // where the header being read began in b
	for i := 0; i < len(b); {
		if g.payload > 0 {
			skip := uint64(len(b) - i)
			if skip > g.payload {
				skip = g.payload
			}
			g.payload -= skip
			i += int(skip)
			continue
		}
		if g.hn == 0 {
			start = i
		}
		g.hdr[g.hn] = b[i]
		g.hn++
		i++
		if g.hn < 2 || g.hn < headerLen(g.hdr[1]) {
			continue
		}
		length := payloadLen(g.hdr[:g.hn])
		opcode := g.hdr[0] & 0x0f
		g.hn = 0
		g.payload = length
		if opcode >= 0x8 { // control frame
			continue
		}
		if opcode != 0x0 { // a new message; 0 continues the current one
			g.message = 0
		}
		g.message = addSat(g.message, length)
		if g.message > uint64(g.limit) {
			g.err = &DeclaredTooBigError{Declared: g.message, Limit: g.limit}
			return start
		}
	}
	return -1
}

// headerLen is the length of a frame header from its second byte: 2,
// plus the extended length, plus the masking key.
func headerLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 {
		n += 4
	}
	return n
}

// payloadLen is the payload length a complete header declares.
func payloadLen(h []byte) uint64 {
	switch l := h[1] & 0x7f; l {
	case 126:
		return uint64(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		return binary.BigEndian.Uint64(h[2:10])
	default:
		return uint64(l)
	}
}

func addSat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

// Accept is websocket.Accept for the hub side of a link: the accepted
// connection refuses at once a frame header declaring a message over
// MaxFrameSize (Conn then closes it with 1009) instead of waiting for the
// payload. w must support hijacking, as for websocket.Accept.
func Accept(w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*websocket.Conn, error) {
	return websocket.Accept(&guardedWriter{ResponseWriter: w, limit: MaxFrameSize}, r, opts)
}

// guardedWriter hands the websocket library a hijacked connection whose
// reads pass through a frameGuard.
type guardedWriter struct {
	http.ResponseWriter
	limit int64
}

// Hijack hijacks the underlying connection. Bytes the HTTP server had
// already buffered past the upgrade request go through the guard too.
func (w *guardedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	var src io.Reader = nc
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		src = io.MultiReader(bytes.NewReader(bytes.Clone(b)), nc)
	}
	gc := &guardedConn{Conn: nc, g: newFrameGuard(src, w.limit)}
	return gc, bufio.NewReadWriter(bufio.NewReader(gc), brw.Writer), nil
}

// guardedConn is a net.Conn whose reads pass through a frameGuard.
type guardedConn struct {
	net.Conn
	g *frameGuard
}

func (c *guardedConn) Read(p []byte) (int, error) { return c.g.Read(p) }

// GuardedClient returns a copy of hc (nil: http.DefaultClient) for
// websocket.DialOptions.HTTPClient, under which a dialled connection
// refuses at once a frame header declaring a message over MaxFrameSize,
// as Accept's do. Responses other than an upgrade are untouched.
func GuardedClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	out := *hc
	rt := out.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	out.Transport = guardedTransport{rt: rt, limit: MaxFrameSize}
	return &out
}

type guardedTransport struct {
	rt    http.RoundTripper
	limit int64
}

// RoundTrip wraps the body of a 101 Switching Protocols response, which
// is the websocket stream itself.
func (t guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		return resp, err
	}
	if rwc, ok := resp.Body.(io.ReadWriteCloser); ok {
		resp.Body = &guardedBody{ReadWriteCloser: rwc, g: newFrameGuard(rwc, t.limit)}
	}
	return resp, nil
}

// guardedBody is an upgraded response body whose reads pass through a
// frameGuard.
type guardedBody struct {
	io.ReadWriteCloser
	g *frameGuard
}

func (b *guardedBody) Read(p []byte) (int, error) { return b.g.Read(p) }
