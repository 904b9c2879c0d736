package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameBytes builds one frame: fin, opcode, optional mask, payload length
// n in the shortest form, and the given payload bytes (which may be fewer
// than n, as a peer that never sends the rest).
func frameBytes(fin bool, opcode byte, masked bool, n uint64, payload []byte) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	var m byte
	if masked {
		m = 0x80
	}
	out := []byte{b0}
	switch {
	case n < 126:
		out = append(out, m|byte(n))
	case n <= 0xffff:
		out = append(out, m|126, 0, 0)
		binary.BigEndian.PutUint16(out[2:], uint16(n))
	default:
		out = append(out, m|127, 0, 0, 0, 0, 0, 0, 0, 0)
		binary.BigEndian.PutUint64(out[2:], n)
	}
	if masked {
		out = append(out, 1, 2, 3, 4)
	}
	return append(out, payload...)
}

func TestFrameGuard(t *testing.T) {
	const limit = 1000
	small := frameBytes(true, 1, true, 5, []byte("hello"))
	ping := frameBytes(true, 9, false, 4, []byte("ping"))
	tests := []struct {
		name     string
		stream   []byte
		passed   int    // bytes delivered before the error
		declared uint64 // 0: no error, the whole stream passes
	}{
		{"small frames pass", bytes.Repeat(small, 3), 0, 0},
		{"a frame of exactly the limit passes", frameBytes(true, 2, false, limit, make([]byte, limit)), 0, 0},
		{"control frames between fragments do not count", append(append(
			frameBytes(false, 1, false, 600, make([]byte, 600)), ping...),
			frameBytes(true, 0, false, 400, make([]byte, 400))...), 0, 0},
		{"2^62 declared, 2 bytes sent", append(small, frameBytes(true, 1, true, 1<<62, []byte("hi"))...), len(small), 1 << 62},
		{"one over the limit, 16-bit length", frameBytes(true, 2, false, limit+1, nil), 0, limit + 1},
		{"the top bit of a 64-bit length", frameBytes(true, 2, false, 1<<63, nil), 0, 1 << 63},
		{"fragments adding up past the limit", append(
			frameBytes(false, 1, true, 600, make([]byte, 600)),
			frameBytes(true, 0, true, 401, nil)...), 600 + 8, 1001},
		{"a new message starts the count again", append(
			frameBytes(true, 1, false, 600, make([]byte, 600)),
			frameBytes(true, 1, false, 600, make([]byte, 600))...), 0, 0},
	}
	for _, tt := range tests {
		for _, split := range []bool{false, true} {
			name := tt.name
			if split {
				name += "/one byte per read"
			}
			t.Run(name, func(t *testing.T) {
				var src io.Reader = bytes.NewReader(tt.stream)
				if split {
					src = iotest.OneByteReader(src)
				}
				got, err := io.ReadAll(newFrameGuard(src, limit))
				if tt.declared == 0 {
					require.NoError(t, err)
					assert.Equal(t, tt.stream, got)
					return
				}
				var tb *DeclaredTooBigError
				require.True(t, errors.As(err, &tb), "got %v", err)
				assert.Equal(t, tt.declared, tb.Declared)
				assert.ErrorIs(t, err, websocket.ErrMessageTooBig)
				if split {
					// The header's own bytes may pass before it is complete;
					// none of its payload does.
					assert.True(t, bytes.HasPrefix(tt.stream, got))
					assert.Less(t, len(got), tt.passed+14)
				} else {
					assert.Equal(t, tt.stream[:tt.passed], got, "what came before the header is delivered")
				}
			})
		}
	}
}
