package device

import (
	"context"
	"fmt"
	"image/color"
	"strings"
)

// RGB is one LED colour. It is image/color's RGBA so that packages above
// device (the JCP executor) can name LED colours without importing device;
// LED drivers ignore A, and the parsers here set it to 0xff.
type RGB = color.RGBA

// colorNames lists the names namedColor knows, sorted.
func colorNames() []string {
	return []string{"black", "blue", "cyan", "green", "magenta", "off", "orange", "pink", "purple", "red", "white", "yellow"}
}

// namedColor returns the colour called name (lower case); "off" is black.
func namedColor(name string) (RGB, bool) {
	var r, g, b uint8
	switch name {
	case "black", "off":
	case "white":
		r, g, b = 0xff, 0xff, 0xff
	case "red":
		r = 0xff
	case "green":
		g = 0xff
	case "blue":
		b = 0xff
	case "yellow":
		r, g = 0xff, 0xff
	case "cyan":
		g, b = 0xff, 0xff
	case "magenta":
		r, b = 0xff, 0xff
	case "orange":
		r, g = 0xff, 0x80
	case "purple":
		r, b = 0x80, 0xff
	case "pink":
		r, g, b = 0xff, 0x60, 0xa0
	default:
		return RGB{}, false
	}
	return RGB{R: r, G: g, B: b, A: 0xff}, true
}

// ColorNames returns the colour names ParseRGB accepts, sorted.
func ColorNames() []string { return colorNames() }

// ParseRGB parses a colour written as #rrggbb (hex digits in either case) or
// as one of ColorNames (any case).
func ParseRGB(s string) (RGB, error) {
	if c, ok := namedColor(strings.ToLower(s)); ok {
		return c, nil
	}
	if len(s) == 7 && s[0] == '#' {
		var v [3]uint8
		ok := true
		for i := range v {
			hi, ok1 := hexDigit(s[1+2*i])
			lo, ok2 := hexDigit(s[2+2*i])
			ok = ok && ok1 && ok2
			v[i] = hi<<4 | lo
		}
		if ok {
			return RGB{R: v[0], G: v[1], B: v[2], A: 0xff}, nil
		}
	}
	return RGB{}, fmt.Errorf("parse colour %q: want #rrggbb or one of %s", s, strings.Join(ColorNames(), ", "))
}

func hexDigit(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// FormatRGB writes c as #rrggbb, the form ParseRGB reads back.
func FormatRGB(c RGB) string {
	const digits = "0123456789abcdef"
	return string([]byte{'#',
		digits[c.R>>4], digits[c.R&0xf],
		digits[c.G>>4], digits[c.G&0xf],
		digits[c.B>>4], digits[c.B&0xf]})
}

// Fill returns n pixels of colour c.
func Fill(n int, c RGB) []RGB {
	px := make([]RGB, n)
	for i := range px {
		px[i] = c
	}
	return px
}

// LEDRing is Jibo's light ring: a fixed number of RGB pixels.
type LEDRing interface {
	// Len returns the number of pixels.
	Len() int
	// Set shows px, which must hold exactly Len colours.
	Set(ctx context.Context, px []RGB) error
	// Pixels returns a copy of the colours shown now.
	Pixels() []RGB
}
