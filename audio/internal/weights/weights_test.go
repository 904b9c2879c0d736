package weights

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f32(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func TestTensor(t *testing.T) {
	tail := []byte{9}
	for _, tc := range []struct {
		name  string
		data  []byte
		dtype string
		rows  int
		size  int
		want  []float32
		err   string
	}{
		{"f32", append(f32(1.5, -2), tail...), "f32", 1, 2, []float32{1.5, -2}, ""},
		{"i8 rows scaled", append(append(f32(0.5, 2), 2, 0xfe, 1, 3), tail...), "i8", 2, 4, []float32{1, -1, 2, 6}, ""},
		// 0xf1: low nibble 1, high nibble -1.
		{"i4 nibbles", append(append(f32(2), 0xf1, 0x07), tail...), "i4", 1, 3, []float32{2, -2, 14}, ""},
		{"cut short", f32(1), "f32", 1, 2, nil, "cut short"},
		{"NaN scale", append(f32(float32(math.NaN())), 1), "i8", 1, 1, nil, "holds NaN"},
		{"rows that do not divide", f32(1, 2, 3), "f32", 2, 3, nil, "3 values in 2 rows"},
		{"no rows", nil, "i8", 0, 0, nil, "0 values in 0 rows"},
		{"unknown dtype", f32(1), "f16", 1, 1, nil, `dtype "f16"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, rest, err := Tensor(tc.data, tc.dtype, tc.rows, tc.size)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, v)
			assert.Equal(t, tail, rest, "what follows the tensor")
		})
	}
}

func TestOpen(t *testing.T) {
	type header struct {
		N int `json:"n"`
	}
	file := func(magic, h string, rest ...byte) []byte {
		b := binary.LittleEndian.AppendUint32([]byte(magic), uint32(len(h)))
		return append(append(b, h...), rest...)
	}
	var h header
	data, err := Open(file("MAGIC", `{"n":3}`, 7), "MAGIC", "a test model", 100, 20, &h)
	require.NoError(t, err)
	assert.Equal(t, 3, h.N)
	assert.Equal(t, []byte{7}, data)
	for _, tc := range []struct {
		name string
		b    []byte
		err  string
	}{
		{"too large", file("MAGIC", `{"n":3}`, make([]byte, 100)...), "limit 100"},
		{"other magic", file("OTHER", `{"n":3}`), "not a test model file (bad magic)"},
		{"header over its limit", file("MAGIC", `{"n":3,              "x":1}`), "does not fit"},
		{"unknown field", file("MAGIC", `{"m":3}`), `unknown field "m"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.b, "MAGIC", "a test model", 100, 20, &header{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
