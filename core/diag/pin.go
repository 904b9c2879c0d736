package diag

import (
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// PIN hashes. The robot's configuration keeps only a hash of the
// technician PIN, "pbkdf2-sha256$<iterations>$<salt>$<key>" with salt and
// key in unpadded base64. A PIN of a few digits has few possibilities, so
// the hash only slows guessing from a stolen configuration; what protects
// technician mode is the rate limit and lockout (access.go).
const (
	pinScheme = "pbkdf2-sha256"
	// DefaultPINIterations is what HashPIN uses: one check takes about
	// 30 ms on the development VM (BenchmarkVerifyPIN), several times that
	// on an ARM board; the shell pauses longer after a wrong PIN anyway.
	DefaultPINIterations = 100_000
	// MinPINIterations and MaxPINIterations bound a hash's iterations.
	MinPINIterations = 1_000
	MaxPINIterations = 10_000_000
	// MinPINLen and MaxPINLen bound a PIN: digits only.
	MinPINLen  = 4
	MaxPINLen  = 12
	pinSaltLen = 16
	pinKeyLen  = 32
	// MaxPINHashLen bounds a hash string.
	MaxPINHashLen = 256
)

// ErrBadPINHash marks a configured PIN hash that cannot be used.
var ErrBadPINHash = errors.New("bad PIN hash")

// CheckPIN says whether pin is an acceptable PIN: 4 to 12 digits.
func CheckPIN(pin string) error {
	if len(pin) < MinPINLen || len(pin) > MaxPINLen {
		return fmt.Errorf("a PIN has %d to %d digits, not %d characters", MinPINLen, MaxPINLen, len(pin))
	}
	for _, c := range pin {
		if c < '0' || c > '9' {
			return errors.New("a PIN has digits only")
		}
	}
	return nil
}

// HashPIN returns the hash of pin to put in the robot's configuration.
func HashPIN(pin string, iterations int) (string, error) {
	if err := CheckPIN(pin); err != nil {
		return "", err
	}
	if iterations < MinPINIterations || iterations > MaxPINIterations {
		return "", fmt.Errorf("hashing PIN: %d iterations outside %d..%d", iterations, MinPINIterations, MaxPINIterations)
	}
	salt := make([]byte, pinSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hashing PIN: %w", err)
	}
	key, err := pbkdf2.Key(sha256.New, pin, salt, iterations, pinKeyLen)
	if err != nil {
		return "", fmt.Errorf("hashing PIN: %w", err)
	}
	enc := base64.RawStdEncoding
	return pinScheme + "$" + strconv.Itoa(iterations) + "$" + enc.EncodeToString(salt) + "$" + enc.EncodeToString(key), nil
}

// pinHash is a parsed PIN hash.
type pinHash struct {
	iterations int
	salt, key  []byte
}

// parsePINHash reads a hash made by HashPIN.
func parsePINHash(s string) (*pinHash, error) {
	s = strings.TrimSpace(s)
	if len(s) > MaxPINHashLen {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBadPINHash, len(s), MaxPINHashLen)
	}
	parts := strings.Split(s, "$")
	if len(parts) != 4 || parts[0] != pinScheme {
		return nil, fmt.Errorf("%w: want %s$ITERATIONS$SALT$KEY (make one with `jibod shell --hash-pin`)", ErrBadPINHash, pinScheme)
	}
	it, err := strconv.Atoi(parts[1])
	if err != nil || it < MinPINIterations || it > MaxPINIterations {
		return nil, fmt.Errorf("%w: iterations %q not in %d..%d", ErrBadPINHash, parts[1], MinPINIterations, MaxPINIterations)
	}
	enc := base64.RawStdEncoding
	salt, err := enc.DecodeString(parts[2])
	if err != nil || len(salt) < 8 {
		return nil, fmt.Errorf("%w: salt is not base64 of at least 8 bytes", ErrBadPINHash)
	}
	key, err := enc.DecodeString(parts[3])
	if err != nil || len(key) != pinKeyLen {
		return nil, fmt.Errorf("%w: key is not base64 of %d bytes", ErrBadPINHash, pinKeyLen)
	}
	return &pinHash{iterations: it, salt: salt, key: key}, nil
}

// verify reports whether pin matches, in time independent of where a
// wrong PIN differs.
func (h *pinHash) verify(pin string) bool {
	if len(pin) > MaxPINLen {
		return false
	}
	key, err := pbkdf2.Key(sha256.New, pin, h.salt, h.iterations, pinKeyLen)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(key, h.key) == 1
}

// MaxPINFile bounds a PIN hash file.
const MaxPINFile = 1024

// ReadPINFile reads the technician PIN's hash from the file path, trimmed.
// A missing file is "" and no error unless mustExist (a file named on the
// command line must be there). A file others may write is refused: anyone
// could set their own PIN with it.
func ReadPINFile(path string, mustExist bool) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			return "", nil
		}
		return "", fmt.Errorf("technician PIN file: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return "", fmt.Errorf("technician PIN file: %w", err)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("technician PIN file %s: others may write it (mode %v); chmod 600 it", path, st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(fh, MaxPINFile+1))
	if err != nil {
		return "", fmt.Errorf("technician PIN file: %w", err)
	}
	if len(b) > MaxPINFile {
		return "", fmt.Errorf("technician PIN file %s: over %d bytes", path, MaxPINFile)
	}
	return strings.TrimSpace(string(b)), nil
}
