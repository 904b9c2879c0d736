// Package weights reads the model files the project's training scripts
// write (scripts/wake, scripts/enhance): a magic, the length of a JSON
// header as a little-endian uint32, the header, then the tensors one after
// another, as float32 or as int8 or int4 rows, each row led by its
// float32 scale.
package weights

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Open checks that b is a file of the kind magic starts, within maxFile
// bytes and a header within maxHeader, and decodes its header into h,
// refusing fields h does not have. It returns the tensor data after the
// header. what names the kind in errors ("a wake model").
func Open(b []byte, magic, what string, maxFile, maxHeader int, h any) ([]byte, error) {
	if len(b) > maxFile {
		return nil, fmt.Errorf("%d bytes, limit %d", len(b), maxFile)
	}
	if len(b) < len(magic)+4 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("not %s file (bad magic)", what)
	}
	n := binary.LittleEndian.Uint32(b[len(magic):])
	rest := b[len(magic)+4:]
	if n > uint32(maxHeader) || int(n) > len(rest) {
		return nil, fmt.Errorf("header of %d bytes does not fit (limit %d, file has %d)", n, maxHeader, len(rest))
	}
	dec := json.NewDecoder(bytes.NewReader(rest[:n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	return rest[n:], nil
}

// Tensor decodes from the front of data a tensor of size values in rows
// rows stored as dtype ("f32", "i8" or "i4") and returns its values and
// what follows it. A scale or value that is not finite is refused.
func Tensor(data []byte, dtype string, rows, size int) ([]float32, []byte, error) {
	if rows < 1 || size < 0 || size%rows != 0 {
		return nil, nil, fmt.Errorf("%d values in %d rows", size, rows)
	}
	float := func(b []byte) (float32, error) {
		f := math.Float32frombits(binary.LittleEndian.Uint32(b))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return 0, fmt.Errorf("holds %v", f)
		}
		return f, nil
	}
	v := make([]float32, size)
	per := size / rows
	switch dtype {
	case "f32":
		if len(data) < 4*size {
			return nil, nil, errors.New("cut short")
		}
		for k := range v {
			f, err := float(data[4*k:])
			if err != nil {
				return nil, nil, err
			}
			v[k] = f
		}
		return v, data[4*size:], nil
	case "i8", "i4":
		stored := size
		if dtype == "i4" {
			stored = (size + 1) / 2
		}
		if len(data) < 4*rows+stored {
			return nil, nil, errors.New("cut short")
		}
		values := data[4*rows:]
		for r := range rows {
			scale, err := float(data[4*r:])
			if err != nil {
				return nil, nil, fmt.Errorf("scale of row %d: %w", r, err)
			}
			for k := r * per; k < (r+1)*per; k++ {
				if dtype == "i8" {
					v[k] = float32(int8(values[k])) * scale
					continue
				}
				b := values[k/2]
				if k%2 == 1 {
					b >>= 4
				}
				// A nibble is a two's complement value from -8 to 7.
				v[k] = float32(int8(b<<4)>>4) * scale
			}
		}
		return v, data[4*rows+stored:], nil
	}
	return nil, nil, fmt.Errorf("dtype %q, want f32, i8 or i4", dtype)
}
