package token

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// private reports an error if a secret file may be read by anyone but its
// owner.
func private(path string, fi os.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s: mode %04o lets group or others read a secret; chmod 600 it", path, perm)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	return nil
}

// readSecret reads a small owner-only file, trimmed of surrounding space.
func readSecret(path string, limit int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if err := private(path, fi); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", fmt.Errorf("%s: over %d bytes", path, limit)
	}
	return string(bytes.TrimSpace(b)), nil
}

// writeSecret writes content to path, readable only by its owner,
// replacing it atomically.
func writeSecret(path string, content []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadKeyFile reads a hex-encoded key written by WriteKeyFile. It refuses
// a file group or others may read.
func ReadKeyFile(path string) ([]byte, error) {
	s, err := readSecret(path, 2*MaxKeySize+2)
	if err != nil {
		return nil, fmt.Errorf("read token key: %w", err)
	}
	key, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("read token key %s: not hex: %w", path, err)
	}
	if len(key) < MinKeySize || len(key) > MaxKeySize {
		return nil, fmt.Errorf("read token key %s: %d bytes, want %d..%d", path, len(key), MinKeySize, MaxKeySize)
	}
	return key, nil
}

// WriteKeyFile writes key hex-encoded to path with mode 0600.
func WriteKeyFile(path string, key []byte) error {
	if len(key) < MinKeySize || len(key) > MaxKeySize {
		return fmt.Errorf("write token key %s: %d bytes, want %d..%d", path, len(key), MinKeySize, MaxKeySize)
	}
	if err := writeSecret(path, []byte(hex.EncodeToString(key)+"\n")); err != nil {
		return fmt.Errorf("write token key: %w", err)
	}
	return nil
}

// ReadTokenFile reads the robot's token: one JWT, surrounding space
// trimmed, at most MaxTokenSize bytes. Like a key file it must not be
// readable by group or others.
func ReadTokenFile(path string) (string, error) {
	s, err := readSecret(path, MaxTokenSize+64)
	if err != nil {
		return "", fmt.Errorf("read hub token: %w", err)
	}
	switch {
	case s == "":
		return "", fmt.Errorf("read hub token %s: empty", path)
	case len(s) > MaxTokenSize:
		return "", fmt.Errorf("read hub token %s: %d bytes, limit %d", path, len(s), MaxTokenSize)
	case strings.ContainsAny(s, " \t\r\n"):
		return "", fmt.Errorf("read hub token %s: more than one token (contains whitespace)", path)
	case strings.Count(s, ".") != 2:
		return "", fmt.Errorf("read hub token %s: %w: not a JWT (want header.payload.signature)", path, ErrInvalid)
	}
	return s, nil
}

// WriteTokenFile writes tok to path with mode 0600, for ReadTokenFile.
func WriteTokenFile(path, tok string) error {
	if tok == "" || len(tok) > MaxTokenSize || strings.ContainsAny(tok, " \t\r\n") {
		return errors.New("write hub token: want one token of at most 8 KiB without whitespace")
	}
	if err := writeSecret(path, []byte(tok+"\n")); err != nil {
		return fmt.Errorf("write hub token: %w", err)
	}
	return nil
}
