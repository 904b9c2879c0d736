package sphinx

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sendumpBytes builds a sendump as pocketsphinx's tools write it: length-
// prefixed header strings (a description first), a zero, the density and
// senone counts, then one byte per senone for each feature and density.
func sendumpBytes(order binary.ByteOrder, header []string, densities, senones, feats int, q func(f, d, s int) byte) []byte {
	var b bytes.Buffer
	put := func(v uint32) { _ = binary.Write(&b, order, v) }
	for _, h := range append([]string{"BEGIN FILE FORMAT DESCRIPTION ... END"}, header...) {
		put(uint32(len(h) + 1))
		b.WriteString(h)
		b.WriteByte(0)
	}
	put(0)
	put(uint32(densities))
	put(uint32(senones))
	for f := range feats {
		for d := range densities {
			for s := range senones {
				b.WriteByte(q(f, d, s))
			}
		}
	}
	return b.Bytes()
}

func TestReadSendump(t *testing.T) {
	q := func(f, d, s int) byte { return byte((f + d + s) % 7) }
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw := sendumpBytes(order, []string{"cluster_count 0", "mixw_shift 10", "feature_count 2"}, 4, 3, 2, q)
		mw, err := ReadSendump(bytes.NewReader(raw))
		require.NoError(t, err, "%v", order)
		assert.Equal(t, [3]int{3, 2, 4}, [3]int{mw.Senones, mw.Features, mw.Densities})
		for s := range 3 {
			for f := range 2 {
				row := mw.W[(s*2+f)*4 : (s*2+f+1)*4]
				var sum float64
				for _, w := range row {
					sum += float64(w)
				}
				assert.InDelta(t, 1, sum, 1e-5, "each distribution sums to one")
				// Weights keep their quantised ratios: 1.0001^-(Δq<<10).
				want := math.Pow(1.0001, -float64((int(q(f, 1, s))-int(q(f, 0, s)))<<10))
				assert.InDelta(t, want, float64(row[1])/float64(row[0]), 1e-4)
			}
		}
	}
}

func TestReadSendumpRefusesBadFiles(t *testing.T) {
	q := func(int, int, int) byte { return 1 }
	good := sendumpBytes(binary.LittleEndian, []string{"feature_count 1"}, 2, 2, 1, q)
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "reading the header"},
		{"truncated weights", good[:len(good)-1], "reading feature 0 density 1"},
		{"data after", append(append([]byte{}, good...), 9), "data after the weights"},
		{"clustered", sendumpBytes(binary.LittleEndian, []string{"cluster_count 4", "feature_count 1"}, 2, 2, 1, q), "clustered"},
		{"no features", sendumpBytes(binary.LittleEndian, []string{"feature_count 0"}, 2, 2, 1, q), "feature_count 0"},
		{"bad count", sendumpBytes(binary.LittleEndian, []string{"feature_count x"}, 2, 2, 1, q), `feature_count "x"`},
		{"too many densities", sendumpBytes(binary.LittleEndian, []string{"feature_count 1"}, 5000, 1, 1, q), "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSendump(bytes.NewReader(tt.raw))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestWriteMixtureWeights(t *testing.T) {
	mw := &MixtureWeights{Senones: 2, Features: 1, Densities: 3, W: []float32{0.5, 0.25, 0.25, 1, 0, 0}}
	var b bytes.Buffer
	require.NoError(t, WriteMixtureWeights(&b, mw))
	out := b.Bytes()
	end := bytes.Index(out, []byte("endhdr\n")) + len("endhdr\n")
	require.Greater(t, end, 0)
	assert.True(t, bytes.HasPrefix(out, []byte("s3\nversion 1.0\n")))
	assert.Zero(t, end%4, "the data starts on a 4-byte boundary")
	le := binary.LittleEndian
	assert.Equal(t, uint32(0x11223344), le.Uint32(out[end:]))
	assert.Equal(t, []uint32{2, 1, 3, 6}, []uint32{le.Uint32(out[end+4:]), le.Uint32(out[end+8:]), le.Uint32(out[end+12:]), le.Uint32(out[end+16:])})
	assert.Equal(t, float32(0.25), math.Float32frombits(le.Uint32(out[end+20+4:])))
	assert.Len(t, out, end+20+6*4)

	mw.W = mw.W[:5]
	assert.Error(t, WriteMixtureWeights(&b, mw), "the shape must match the values")
}
