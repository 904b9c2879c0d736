package board

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteCheck: a table under the board's name, or JSON lines; the
// error counts the devices that did not answer.
func TestWriteCheck(t *testing.T) {
	p := &Profile{Name: "test", Description: "a test board"}
	results := []CheckResult{
		{Device: "ring", Driver: "ws2812", Where: "spi0", OK: true, Detail: "12 pixels"},
		{Device: "motor.base", Driver: "pca9685", Where: "i2c1 0x40", Error: "no answer"},
	}
	var out strings.Builder
	err := WriteCheck(&out, p, results, false)
	assert.EqualError(t, err, "1 of 2 devices did not answer")
	assert.Equal(t, "board test: a test board\n"+
		"ring        ws2812   spi0       ok    12 pixels\n"+
		"motor.base  pca9685  i2c1 0x40  FAIL  no answer\n", out.String())

	out.Reset()
	require.NoError(t, WriteCheck(&out, p, results[:1], true))
	assert.Equal(t, `{"device":"ring","driver":"ws2812","where":"spi0","ok":true,"detail":"12 pixels"}`+"\n", out.String())
}
