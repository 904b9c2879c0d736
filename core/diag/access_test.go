package diag

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHashPIN(t *testing.T) {
	h, err := HashPIN("123456", MinPINIterations)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(h, "pbkdf2-sha256$1000$"))
	p, err := parsePINHash(h)
	require.NoError(t, err)
	assert.True(t, p.verify("123456"))
	for _, wrong := range []string{"123457", "12345", "1234567", "", "123456 ", strings.Repeat("1", 100)} {
		assert.False(t, p.verify(wrong), "%q", wrong)
	}
	h2, err := HashPIN("123456", MinPINIterations)
	require.NoError(t, err)
	assert.NotEqual(t, h, h2, "every hash has its own salt")

	for _, tc := range []struct{ pin, err string }{
		{"123", "4 to 12 digits"}, {"1234567890123", "4 to 12 digits"}, {"12a4", "digits only"}, {"１２３４", "digits only"},
	} {
		_, err := HashPIN(tc.pin, MinPINIterations)
		assert.ErrorContains(t, err, tc.err, tc.pin)
	}
	_, err = HashPIN("1234", 10)
	assert.ErrorContains(t, err, "iterations outside")
}

func TestParsePINHashRefusesBadHashes(t *testing.T) {
	good, err := HashPIN("1234", MinPINIterations)
	require.NoError(t, err)
	parts := strings.Split(good, "$")
	for name, h := range map[string]string{
		"plain PIN":        "1234",
		"other scheme":     "bcrypt$" + strings.Join(parts[1:], "$"),
		"too few parts":    strings.Join(parts[:3], "$"),
		"iterations low":   parts[0] + "$999$" + parts[2] + "$" + parts[3],
		"iterations word":  parts[0] + "$many$" + parts[2] + "$" + parts[3],
		"salt not base64":  parts[0] + "$1000$***$" + parts[3],
		"salt too short":   parts[0] + "$1000$AAAA$" + parts[3],
		"key wrong length": parts[0] + "$1000$" + parts[2] + "$AAAA",
		"too long":         good + strings.Repeat("A", MaxPINHashLen),
	} {
		_, err := parsePINHash(h)
		assert.ErrorIs(t, err, ErrBadPINHash, name)
	}
	_, err = parsePINHash("  " + good + "\n")
	assert.NoError(t, err, "surrounding space, as in a file, is fine")
}

func TestGateLocksOutAfterWrongPINs(t *testing.T) {
	clock := newFakeClock()
	h, err := parsePINHash(testPINHash)
	require.NoError(t, err)
	g := &gate{hash: h, now: clock.Now}

	assert.ErrorIs(t, g.try("0000"), ErrWrongPIN)
	assert.EqualError(t, g.try("0000"), "wrong PIN (1 try left)")
	err = g.try("0000")
	assert.ErrorIs(t, err, ErrWrongPIN)
	assert.ErrorIs(t, err, ErrLockedOut)
	assert.EqualError(t, err, "wrong PIN: technician mode is locked out after too many wrong PINs for 5m0s")

	// Locked out: even the right PIN is refused, without being checked.
	assert.EqualError(t, g.try(testPIN), "technician mode is locked out after too many wrong PINs: try again in 5m0s")
	clock.Advance(4*time.Minute + 30*time.Second + time.Millisecond)
	assert.EqualError(t, g.try(testPIN), "technician mode is locked out after too many wrong PINs: try again in 30s")
	clock.Advance(30 * time.Second)
	assert.Zero(t, g.lockedOut())

	// The next lockout is twice as long.
	for range MaxWrongPINs {
		_ = g.try("9999")
	}
	assert.Equal(t, 10*time.Minute, g.lockedOut())
	clock.Advance(10 * time.Minute)

	// A correct PIN resets the count and the doubling.
	require.NoError(t, g.try(testPIN))
	for range MaxWrongPINs {
		_ = g.try("9999")
	}
	assert.Equal(t, DefaultLockout, g.lockedOut())

	// Doubling stops at MaxLockout.
	for range 10 {
		clock.Advance(MaxLockout)
		for range MaxWrongPINs {
			_ = g.try("9999")
		}
	}
	assert.Equal(t, MaxLockout, g.lockedOut())

	assert.ErrorIs(t, (&gate{now: clock.Now}).try(testPIN), ErrNoPIN)
}

func BenchmarkVerifyPIN(b *testing.B) {
	h, err := HashPIN("123456", DefaultPINIterations)
	if err != nil {
		b.Fatal(err)
	}
	p, err := parsePINHash(h)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p.verify("123456")
	}
}
