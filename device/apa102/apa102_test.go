package apa102_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/apa102"
)

// frame is the APA102 wire format: a start frame of four zero bytes, then
// per LED a header byte (0xE0 | 5-bit global brightness) and blue, green,
// red, then an end frame of 0xFF bytes (one per 16 LEDs, plus one) to
// clock the last bits through.
func frame(header byte, px ...[3]byte) []byte {
	out := []byte{0, 0, 0, 0}
	for _, c := range px {
		out = append(out, header, c[2], c[1], c[0])
	}
	for range len(px)/16 + 1 {
		out = append(out, 0xff)
	}
	return out
}

func black(n int) [][3]byte { return make([][3]byte, n) }

// Replays the exact SPI frames: all off at start, the colours as given
// (global brightness full, 8 bits a channel), scaled by the brightness
// option, and off (periph's Halt) at Close.
func TestRingTrace(t *testing.T) {
	tests := []struct {
		name       string
		brightness uint8
		set        []device.RGB
		want       [][3]byte
	}{
		{"full", 0, []device.RGB{{R: 0xff}, {G: 0x80}, {B: 0x01}, {R: 0x12, G: 0x34, B: 0x56}},
			[][3]byte{{0xff, 0, 0}, {0, 0x80, 0}, {0, 0, 0x01}, {0x12, 0x34, 0x56}}},
		// Brightness 128 halves: (v·128 + 127) / 255.
		{"half", 128, []device.RGB{{R: 0xff}, {G: 0x80}, {B: 0x02}, {R: 0x12, G: 0x34, B: 0x56}},
			[][3]byte{{0x80, 0, 0}, {0, 0x40, 0}, {0, 0, 0x01}, {0x09, 0x1a, 0x2b}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := &spitest.Playback{Playback: conntest.Playback{DontPanic: true, Ops: []conntest.IO{
				{W: frame(0xff, black(4)...)},
				{W: frame(0xff, tt.want...)},
				{W: frame(0xff, tt.want...)}, // Check resends the frame
				{W: frame(0xe1, black(4)...)},
			}}}
			r, err := apa102.New(port, apa102.Options{Pixels: 4, Brightness: tt.brightness})
			require.NoError(t, err)
			assert.Equal(t, 4, r.Len())
			require.NoError(t, r.Set(context.Background(), tt.set))
			require.NoError(t, r.Check(context.Background()))
			require.NoError(t, r.Close())
			require.NoError(t, port.Close(), "every expected frame was sent")
			assert.Equal(t, device.RGB{R: tt.set[3].R, G: tt.set[3].G, B: tt.set[3].B, A: 0xff}, r.Pixels()[3])
		})
	}
}

// A ring of 40 LEDs needs three end-frame bytes.
func TestRingLongFrame(t *testing.T) {
	px := make([]device.RGB, 40)
	want := black(40)
	px[39], want[39] = device.RGB{R: 7}, [3]byte{7, 0, 0}
	port := &spitest.Playback{Playback: conntest.Playback{DontPanic: true, Ops: []conntest.IO{
		{W: frame(0xff, black(40)...)},
		{W: frame(0xff, want...)},
	}}}
	r, err := apa102.New(port, apa102.Options{Pixels: 40})
	require.NoError(t, err)
	require.NoError(t, r.Set(context.Background(), px))
	require.NoError(t, port.Close())
}

func TestRingErrors(t *testing.T) {
	_, err := apa102.New(&spitest.Playback{}, apa102.Options{})
	assert.ErrorContains(t, err, "0 pixels outside 1..1024")

	port := &spitest.Playback{Playback: conntest.Playback{DontPanic: true, Ops: []conntest.IO{{W: frame(0xff, black(2)...)}}}}
	r, err := apa102.New(port, apa102.Options{Pixels: 2})
	require.NoError(t, err)
	assert.ErrorContains(t, r.Set(context.Background(), device.Fill(3, device.RGB{})), "got 3 colours, the ring has 2 pixels")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, r.Set(ctx, device.Fill(2, device.RGB{})), context.Canceled)
	// The port takes no more frames: Set reports the bus error, and the
	// ring keeps showing what it showed.
	assert.ErrorContains(t, r.Set(context.Background(), device.Fill(2, device.RGB{R: 1})), "apa102: set:")
	assert.Equal(t, device.Fill(2, device.RGB{A: 0xff}), r.Pixels())
	assert.Error(t, r.Check(context.Background()))
}

// Set allocates nothing: a 50 Hz animation leaves no garbage.
func TestSetAllocatesNothing(t *testing.T) {
	r, err := apa102.New(nopPort{}, apa102.Options{Pixels: 12})
	require.NoError(t, err)
	px := device.Fill(12, device.RGB{R: 1})
	ctx := context.Background()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = r.Set(ctx, px) }))
}

// nopPort is an SPI port that takes every frame.
type nopPort struct{}

func (nopPort) String() string                                            { return "nop" }
func (nopPort) LimitSpeed(physic.Frequency) error                         { return nil }
func (nopPort) Connect(physic.Frequency, spi.Mode, int) (spi.Conn, error) { return nopConn{}, nil }

type nopConn struct{}

func (nopConn) String() string                 { return "nop" }
func (nopConn) Tx(w, r []byte) error           { return nil }
func (nopConn) Duplex() conn.Duplex            { return conn.Half }
func (nopConn) TxPackets(p []spi.Packet) error { return nil }
