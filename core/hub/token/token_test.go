package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	key   = []byte("0123456789abcdef0123456789abcdef")
	epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newIssuer(t *testing.T, c *clock) *Issuer {
	t.Helper()
	i, err := NewIssuer(key, c.now)
	require.NoError(t, err)
	return i
}

// sign builds a token by hand: header and payload JSON, HMAC-SHA256 with k.
func sign(header, payload string, k []byte) string {
	enc := base64.RawURLEncoding
	s := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	m := hmac.New(sha256.New, k)
	m.Write([]byte(s))
	return s + "." + enc.EncodeToString(m.Sum(nil))
}

func TestIssueVerify(t *testing.T) {
	c := &clock{epoch}
	i := newIssuer(t, c)
	want := Claims{ID: "acct-1", AccessKeyID: "AK", SecretAccessKey: "SK", FriendlyID: "my-friendly-robot"}
	tok, err := i.Issue(want, time.Hour)
	require.NoError(t, err)
	got, err := i.Verify(tok)
	require.NoError(t, err)
	want.IssuedAt, want.ExpiresAt = epoch, epoch.Add(time.Hour)
	assert.True(t, want.IssuedAt.Equal(got.IssuedAt) && want.ExpiresAt.Equal(got.ExpiresAt))
	got.IssuedAt, got.ExpiresAt = want.IssuedAt, want.ExpiresAt
	assert.Equal(t, want, got)
	assert.Equal(t, "acct-1", got.AccountID())
	assert.Equal(t, "my-friendly-robot", got.RobotID())
	assert.Equal(t, "acct-1", Claims{ID: "acct-1"}.RobotID(), "robot id falls back to id")
}

func TestVerifyRefuses(t *testing.T) {
	c := &clock{epoch}
	i := newIssuer(t, c)
	good, err := i.Issue(Claims{ID: "acct-1"}, time.Hour)
	require.NoError(t, err)
	other, err := NewIssuer([]byte("another key of at least 32 bytes!!"), c.now)
	require.NoError(t, err)
	wrongKey, err := other.Issue(Claims{ID: "acct-1"}, time.Hour)
	require.NoError(t, err)
	parts := strings.Split(good, ".")
	iat, exp := epoch.Unix(), epoch.Add(time.Hour).Unix()
	payload := func(extra string) string {
		return `{"id":"acct-1"` + extra + `}`
	}
	enc := base64.RawURLEncoding
	rsaHeader := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))

	tests := []struct {
		name    string
		tok     string
		wantErr error
		detail  string
	}{
		{"forged signature", parts[0] + "." + parts[1] + "." + enc.EncodeToString([]byte("not the signature at all, really")), ErrInvalid, "signature is invalid"},
		{"forged payload", parts[0] + "." + enc.EncodeToString([]byte(payload(`,"iat":1,"exp":99999999999`))) + "." + parts[2], ErrInvalid, "signature is invalid"},
		{"wrong key", wrongKey, ErrInvalid, "signature is invalid"},
		{"alg none", enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".", ErrInvalid, "signing method none is invalid"},
		{"alg RS256", rsaHeader + "." + parts[1] + "." + parts[2], ErrInvalid, "signing method RS256 is invalid"},
		{"malformed", "not-a-jwt", ErrInvalid, "malformed"},
		{"empty", "", ErrInvalid, "malformed"},
		{"oversized", strings.Repeat("a", MaxTokenSize+1), ErrInvalid, "8193 bytes, limit 8192"},
		{"missing id", sign(`{"alg":"HS256","typ":"JWT"}`, `{"iat":`+itoa(iat)+`,"exp":`+itoa(exp)+`}`, key), ErrInvalid, "claim id: required"},
		{"missing exp", sign(`{"alg":"HS256","typ":"JWT"}`, payload(`,"iat":`+itoa(iat)), key), ErrInvalid, "exp claim is required"},
		{"missing iat", sign(`{"alg":"HS256","typ":"JWT"}`, payload(`,"exp":`+itoa(exp)), key), ErrInvalid, "iat and exp are required"},
		{"claim of wrong type", sign(`{"alg":"HS256","typ":"JWT"}`, `{"id":7,"iat":`+itoa(iat)+`,"exp":`+itoa(exp)+`}`, key), ErrInvalid, "malformed"},
		{"control character in claim", sign(`{"alg":"HS256","typ":"JWT"}`, payload(`,"friendlyId":"a\u0007b","iat":`+itoa(iat)+`,"exp":`+itoa(exp)), key), ErrInvalid, "friendlyId: contains a non-printable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, err := i.Verify(tt.tok)
			require.ErrorIs(t, err, tt.wantErr)
			assert.ErrorContains(t, err, tt.detail)
			assert.Equal(t, Claims{}, claims)
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Clock skew policy: ClockSkew of leeway either way.
func TestClockSkew(t *testing.T) {
	c := &clock{epoch}
	i := newIssuer(t, c)
	tok, err := i.Issue(Claims{ID: "acct-1"}, time.Hour)
	require.NoError(t, err)

	tests := []struct {
		name    string
		at      time.Time
		wantErr error
	}{
		{"fresh", epoch, nil},
		{"just before expiry", epoch.Add(time.Hour - time.Second), nil},
		{"expired within skew", epoch.Add(time.Hour + ClockSkew - time.Second), nil},
		{"expired beyond skew", epoch.Add(time.Hour + ClockSkew + time.Second), ErrExpired},
		{"verifier clock behind within skew", epoch.Add(-ClockSkew + time.Second), nil},
		{"issued in the future beyond skew", epoch.Add(-ClockSkew - time.Second), ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = tt.at
			_, err := i.Verify(tok)
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}

func TestIssueRefuses(t *testing.T) {
	i := newIssuer(t, &clock{epoch})
	_, err := i.Issue(Claims{ID: "a"}, 0)
	require.ErrorContains(t, err, "ttl 0s, want > 0")
	_, err = i.Issue(Claims{}, time.Hour)
	require.ErrorContains(t, err, "claim id: required")
	_, err = i.Issue(Claims{ID: strings.Repeat("a", MaxClaimLen+1)}, time.Hour)
	require.ErrorContains(t, err, "claim id: 257 bytes, limit 256")
	_, err = NewIssuer([]byte("short"), nil)
	require.ErrorContains(t, err, "token key: 5 bytes, want 32..1024")
}

func TestBearerToken(t *testing.T) {
	tests := []struct {
		header  string
		want    string
		wantErr error
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", nil},
		{"bearer   abc.def.ghi ", "abc.def.ghi", nil},
		{"BEARER x.y.z", "x.y.z", nil},
		{"", "", ErrMissing},
		{"Basic dXNlcjpwYXNz", "", ErrInvalid},
		{"Bearer", "", ErrInvalid},
		{"Bearer ", "", ErrInvalid},
		{"Bearer a b", "", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set("Authorization", tt.header)
			}
			got, err := BearerToken(h)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	k, err := GenerateKey()
	require.NoError(t, err)
	require.Len(t, k, MinKeySize)
	path := filepath.Join(dir, "hub.key")
	require.NoError(t, WriteKeyFile(path, k))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	got, err := ReadKeyFile(path)
	require.NoError(t, err)
	assert.Equal(t, k, got)

	require.NoError(t, os.Chmod(path, 0o640))
	_, err = ReadKeyFile(path)
	require.ErrorContains(t, err, "mode 0640 lets group or others read a secret")

	bad := filepath.Join(dir, "bad.key")
	require.NoError(t, os.WriteFile(bad, []byte("zz not hex"), 0o600))
	_, err = ReadKeyFile(bad)
	require.ErrorContains(t, err, "not hex")
	require.NoError(t, os.WriteFile(bad, []byte("abcd\n"), 0o600))
	_, err = ReadKeyFile(bad)
	require.ErrorContains(t, err, "2 bytes, want 32..1024")
	_, err = ReadKeyFile(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.ErrorContains(t, WriteKeyFile(path, []byte("short")), "5 bytes")
}

func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "robot.token")
	i := newIssuer(t, &clock{epoch})
	tok, err := i.Issue(Claims{ID: "acct-1"}, time.Hour)
	require.NoError(t, err)
	require.NoError(t, WriteTokenFile(path, tok))
	got, err := ReadTokenFile(path)
	require.NoError(t, err)
	assert.Equal(t, tok, got)

	tests := []struct {
		name    string
		content string
		mode    os.FileMode
		wantErr string
	}{
		{"empty", "\n", 0o600, "empty"},
		{"two tokens", tok + "\n" + tok, 0o600, "more than one token"},
		{"not a jwt", "abc", 0o600, "not a JWT"},
		{"too big", strings.Repeat("a", MaxTokenSize+100), 0o600, "over"},
		{"world readable", tok, 0o644, "mode 0644"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			require.NoError(t, os.WriteFile(p, []byte(tt.content), tt.mode))
			require.NoError(t, os.Chmod(p, tt.mode))
			_, err := ReadTokenFile(p)
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
