package audio

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sine(rate, n int, freq float64, amp float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(amp * 32767 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return out
}

func TestWAVRoundTrip(t *testing.T) {
	in := sine(16000, 1600, 440, 0.5)
	var b bytes.Buffer
	require.NoError(t, EncodeWAV(&b, 16000, 1, in))
	c, err := DecodeWAV(&b)
	require.NoError(t, err)
	assert.Equal(t, Format{SampleRate: 16000, Channels: 1, BitsPerSample: 16}, c.Format)
	assert.Equal(t, in, c.Samples)
	assert.InDelta(t, 0.1, c.Duration(), 1e-9)
}

// wav builds a file by hand so tests can make its header lie.
func wav(tag, channels uint16, rate uint32, bits uint16, blockAlign uint16, byteRate uint32, dataSize uint32, data []byte, extra ...byte) []byte {
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(0))
	b.WriteString("WAVE")
	if len(extra) > 0 {
		b.WriteString("LIST")
		binary.Write(&b, binary.LittleEndian, uint32(len(extra)))
		b.Write(extra)
		if len(extra)%2 == 1 {
			b.WriteByte(0)
		}
	}
	b.WriteString("fmt ")
	binary.Write(&b, binary.LittleEndian, uint32(16))
	for _, v := range []any{tag, channels, rate, byteRate, blockAlign, bits} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, dataSize)
	b.Write(data)
	return b.Bytes()
}

func TestDecodeWAVFormats(t *testing.T) {
	// 8-bit unsigned stereo at 8 kHz, with a LIST chunk of odd length first.
	c, err := DecodeWAV(bytes.NewReader(wav(1, 2, 8000, 8, 2, 16000, 4, []byte{128, 255, 0, 128}, 'x', 'y', 'z')))
	require.NoError(t, err)
	assert.Equal(t, []int16{0, 127 << 8, -128 << 8, 0}, c.Samples)
	// 24-bit mono keeps the top 16 bits.
	c, err = DecodeWAV(bytes.NewReader(wav(1, 1, 16000, 24, 3, 48000, 3, []byte{0xff, 0x34, 0x12})))
	require.NoError(t, err)
	assert.Equal(t, []int16{0x1234}, c.Samples)
}

func TestDecodeWAVRejectsLies(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"not RIFF", []byte("RIFX0000WAVEfmt "), "not a RIFF/WAVE file"},
		{"truncated header", []byte("RIF"), "reading the RIFF header"},
		{"float format", wav(3, 1, 16000, 32, 4, 64000, 0, nil), "only integer PCM"},
		{"zero channels", wav(1, 0, 16000, 16, 0, 0, 0, nil), "0 channels"},
		{"silly rate", wav(1, 1, 100, 16, 2, 200, 0, nil), "sample rate 100 Hz"},
		{"12 bits", wav(1, 1, 16000, 12, 2, 32000, 0, nil), "12 bits per sample"},
		{"block align lies", wav(1, 2, 16000, 16, 2, 32000, 0, nil), "block align 2 does not match 2 channels"},
		{"byte rate lies", wav(1, 1, 16000, 16, 2, 44100, 0, nil), "byte rate 44100"},
		{"data longer than the file", wav(1, 1, 16000, 16, 2, 32000, 1000, []byte{1, 2}), "claims 1000 bytes but the file has 2"},
		{"half a frame", wav(1, 1, 16000, 16, 2, 32000, 3, []byte{1, 2, 3}), "not a whole number"},
		{"data over the limit", wav(1, 1, 16000, 16, 2, 32000, MaxWAVBytes+2, nil), "exceeds"},
		{"no data chunk", wav(1, 1, 16000, 16, 2, 32000, 0, nil)[:36], "no data chunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeWAV(bytes.NewReader(tt.in))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrBadWAV)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestToRecognition(t *testing.T) {
	// 48 kHz stereo, left and right equal: 16 kHz mono of a third the length.
	st := make([]int16, 0, 9600)
	for _, s := range sine(48000, 4800, 300, 0.5) {
		st = append(st, s, s)
	}
	out := ToRecognition(&Clip{Format: Format{SampleRate: 48000, Channels: 2, BitsPerSample: 16}, Samples: st})
	assert.Len(t, out, 1600)
	assert.InDelta(t, LevelDBFS(sine(16000, 1600, 300, 0.5)), LevelDBFS(out), 0.2, "level survives the conversion")

	same := sine(16000, 100, 440, 0.3)
	assert.Equal(t, same, ToRecognition(&Clip{Format: Format{SampleRate: 16000, Channels: 1}, Samples: same}))
}

func TestLevelDBFS(t *testing.T) {
	assert.True(t, math.IsInf(LevelDBFS(make([]int16, 10)), -1))
	assert.InDelta(t, -3.01-6.02, LevelDBFS(sine(16000, 16000, 100, 0.5)), 0.05, "a half-scale sine is about -9 dBFS")
}

func FuzzDecodeWAV(f *testing.F) {
	var b bytes.Buffer
	_ = EncodeWAV(&b, 16000, 1, sine(16000, 10, 440, 0.5))
	f.Add(b.Bytes())
	f.Add(wav(1, 2, 8000, 8, 2, 16000, 4, []byte{1, 2, 3, 4}, 'a'))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := DecodeWAV(bytes.NewReader(in))
		if err != nil {
			return
		}
		if len(c.Samples)%c.Format.Channels != 0 {
			t.Fatalf("%d samples for %d channels", len(c.Samples), c.Format.Channels)
		}
		_ = ToRecognition(c)
	})
}
